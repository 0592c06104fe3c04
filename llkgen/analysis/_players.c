/* The model players in C: the same five players as llkgen/analysis/players.py, making the same
 * choices with the same random numbers, so a playthrough clears the same boards with the same
 * moves whichever of the two runs it. llkgen/analysis/native_players.py is the only caller;
 * tests/test_native_players.py holds the two to the same moves, model by model.
 *
 * Why C: a measurement of a level plays it hundreds of times, and in a regular install that
 * was most of make's time (docs/difficulty.md, "Where make's time goes"). The board here is the
 * gravity search's: padded with a one-cell ring, each row's and column's empty cells as one
 * 64-bit mask, and the link test of ../verifier/_links.h, so a step costs a survey of the board
 * and a few bit operations per same-type pair, with no object made.
 *
 * What must stay in step with players.py (a level's numbers must not depend on the build):
 *
 * - The moves of a position are every linkable same-type pair (p, q), p < q, in padded
 *   row-major order: the order of Playout.moves(). They are listed in that order directly: each
 *   tile, in board order, against the later tiles of its type.
 * - The random numbers are SplitMix64 from mix64(base + (k + 1) * GAMMA) for playthrough k,
 *   and below(n) is the high word of next * n (PlayRng in players.py).
 * - random: moves[below(n)]. nearest: the moves of least Manhattan distance between their two
 *   tiles, in move order, and below(count) among them when there is more than one.
 * - lookahead, careful, deep: the moves in a random order drawn one at a time (position i
 *   swaps with i + below(n - i), the last position draws nothing), each judged as it comes:
 *   lookahead takes the first after which the board is cleared or some pair is removable;
 *   careful takes the first such that removes its type's last two tiles, else (the order
 *   drawn whole by then) the first such of the others; deep takes the first such after which
 *   some reply keeps a pair removable (or clears), else the first such, and every model falls
 *   back to the first of the order. The judgements are exact booleans, so how they are
 *   computed (the shortcuts below) never changes a choice.
 * - Gravity: after a removal every run (a column for down and up, a row for left and right,
 *   split by walls) is compacted towards the gravity side, keeping its tiles' order, as the
 *   referee does; an unsettled start falls whole after its first move.
 *
 * Shortcuts, as in players.py: without gravity, removing tiles never blocks a path, so a pair
 * touching neither removed tile is still removable after the move (no copy of the board is
 * needed to see that the move leaves a pair), and two such pairs disjoint from each other
 * settle the two-move test. For the same reason a playthrough on a board without gravity
 * updates its moves after each move rather than listing them again (moves_after, from 64
 * tiles up), and every playthrough of a batch starts from one stock-taking of the start.
 *
 * A batch (playthroughs()) runs without the GIL, a few runs at a time, and looks for a pending
 * signal in between: Ctrl-C stops it within a few runs.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../verifier/_links.h"

#define WALL (-1)
#define GAMMA 0x9E3779B97F4A7C15ULL
/* Without gravity, boards of at least this many tiles update their moves after each move
 * (moves_after) rather than list them again: on smaller ones a survey is cheaper than the
 * bookkeeping (easy's 6 x 8 ran at 0.6-0.7x the speed incremental, medium's 8 x 12 at 1.1-1.6x,
 * hard's 10 x 16 at 1.5-2.3x). Either way the moves are the same. */
#ifndef INCREMENTAL_TILES /* a debugging build may set it (to 2: every board without gravity) */
#define INCREMENTAL_TILES 64
#endif
/* Playthroughs of a batch between two looks for a pending signal (with the GIL). */
#define RUNS_PER_CHECK 4

typedef int16_t cell_t;

enum { M_RANDOM, M_NEAREST, M_LOOKAHEAD, M_CAREFUL, M_DEEP, N_MODELS };

static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline int below(uint64_t *state, int n)
{
    *state += GAMMA;
    uint64_t x = mix64(*state);
#ifdef _MSC_VER
    return (int)__umulh(x, (uint64_t)n);
#else
    return (int)(((unsigned __int128)x * (uint64_t)n) >> 64);
#endif
}

typedef struct {
    int rows, cols, H, W, n;
    int gravity;            /* 0 none, 1 down, 2 up, 3 left, 4 right */
    int ntypes, ntiles;
    int *row, *col;         /* per padded cell */
    int nlines, *line_off, *line_cells; /* gravity's lines, each from the gravity side outwards */
    int *line_of;           /* per padded cell: its gravity line (-1 for the ring, or without gravity) */
    int *type_off;          /* per type: where its tiles go in the scratch list */
    uint64_t ringE_row[64], ringE_col[64];
    uint64_t inner, wall_row[64]; /* the inner columns' bits, and each row's walls */
    cell_t *start;          /* the padded starting board */
    int start_settled;      /* under gravity: whether it is settled */
} Game;

typedef struct {
    cell_t *g;
    int tiles;
    int settled;            /* under gravity: every run is compact (true after the first move) */
    int *count;             /* per type: tiles left */
    uint64_t rowE[64], colE[64];
} Pos;

typedef struct {
    int p, q;
} Move;

/* Working memory: positions for the two levels of look-ahead below the one being played, and
 * a move list for each of the first two levels; the start position and its moves, taken stock
 * of once for every playthrough of a batch (start_nm < 0 until then). */
typedef struct {
    const Game *G;
    Pos pos[3];
    Move *moves[2];
    Pos start;
    Move *start_moves;
    int start_nm;
    int *start_list;        /* the start's tiles by type, in board order (from type_off) */
    Move *fresh, *merged;   /* without gravity: pairs newly removable after a move, and the merge */
    int nfresh, fresh_cap;
    int *seen, *seen_next;  /* tiles seen from an empty run (moves_after), each one's next of its type */
    int *type_head, *type_stamp, stamp; /* per type: its last seen tile, for the run of this stamp */
    int incremental;        /* whether a playthrough updates its moves (moves_after) or lists them */
    Move *order;            /* the random order of the candidates */
    Move *rest;             /* careful's non-completing candidates */
    Move *best;             /* nearest's closest moves */
    int *list, *fill, *index; /* tiles by type (list from type_off, fill counts), and each tile's place */
    int *tiles, ntiles;     /* the tiles, in board order, at the last survey */
    Reach *reach;           /* per padded cell */
} Work;

/* Take stock of the empty cells of a position's board (its masks). */
static void masks(const Game *G, Pos *P)
{
    memcpy(P->rowE, G->ringE_row, sizeof(uint64_t) * G->H);
    memcpy(P->colE, G->ringE_col, sizeof(uint64_t) * G->W);
    for (int r = 1; r < G->H - 1; r++)
        for (int c = 1, p = r * G->W + 1; c < G->W - 1; c++, p++)
            if (P->g[p] == 0) {
                P->rowE[r] |= 1ULL << c;
                P->colE[c] |= 1ULL << r;
            }
}

static void copy_pos(const Game *G, Pos *to, const Pos *from)
{
    memcpy(to->g, from->g, sizeof(cell_t) * G->n);
    memcpy(to->count, from->count, sizeof(int) * (G->ntypes + 1));
    memcpy(to->rowE, from->rowE, sizeof(uint64_t) * G->H);
    memcpy(to->colE, from->colE, sizeof(uint64_t) * G->W);
    to->tiles = from->tiles;
    to->settled = from->settled;
}

/* Compact gravity line k towards the gravity side and bring the masks of its cells up to date. */
static void fall_line(const Game *G, Pos *P, int k)
{
    cell_t *g = P->g;
    const int *line = G->line_cells + G->line_off[k];
    int len = G->line_off[k + 1] - G->line_off[k], dest = 0;
    for (int i = 0; i < len; i++) {
        cell_t v = g[line[i]];
        if (v == WALL) {
            dest = i + 1;
        } else if (v > 0) {
            if (i != dest) {
                g[line[dest]] = v;
                g[line[i]] = 0;
            }
            dest++;
        }
    }
    for (int i = 0; i < len; i++) {
        int p = line[i], r = G->row[p], c = G->col[p];
        if (g[p] == 0) {
            P->rowE[r] |= 1ULL << c;
            P->colE[c] |= 1ULL << r;
        } else {
            P->rowE[r] &= ~(1ULL << c);
            P->colE[c] &= ~(1ULL << r);
        }
    }
}

/* Remove the pair (p, q), let the runs fall under gravity, and update the masks. On a settled
 * board only the lines of p and q can change; an unsettled one falls whole, once. */
static void remove_pair(const Game *G, Pos *P, int p, int q)
{
    cell_t *g = P->g;
    P->count[g[p]] -= 2;
    P->tiles -= 2;
    g[p] = g[q] = 0;
    int rp = G->row[p], cp = G->col[p], rq = G->row[q], cq = G->col[q];
    P->rowE[rp] |= 1ULL << cp;
    P->colE[cp] |= 1ULL << rp;
    P->rowE[rq] |= 1ULL << cq;
    P->colE[cq] |= 1ULL << rq;
    if (!G->gravity)
        return;
    if (P->settled) {
        fall_line(G, P, G->line_of[p]);
        if (G->line_of[q] != G->line_of[p])
            fall_line(G, P, G->line_of[q]);
    } else {
        for (int k = 0; k < G->nlines; k++)
            fall_line(G, P, k);
        P->settled = 1;
    }
}

/* The reach of the tile at row r, column c (see ../verifier/_links.h): a tile with no empty
 * neighbour reaches nothing, and its runs are not measured. */
static inline void reach_at(const Game *G, const Pos *P, int r, int c, Reach *a)
{
    const cell_t *g = P->g;
    int p = r * G->W + c, W = G->W;
    a->r = r;
    a->c = c;
    a->open = g[p - 1] == 0 || g[p + 1] == 0 || g[p - W] == 0 || g[p + W] == 0;
    if (a->open) {
        reach(P->rowE[r], c, &a->hl, &a->hr);
        reach(P->colE[c], r, &a->vu, &a->vd);
    }
}

/* The tiles of a position by type, in board order, with each tile's reach. */
static void survey(Work *Wk, const Pos *P)
{
    const Game *G = Wk->G;
    const cell_t *g = P->g;
    int W = G->W;
    int n = 0;
    memset(Wk->fill, 0, sizeof(int) * (G->ntypes + 1));
    for (int r = 1; r < G->H - 1; r++)
        /* the row's tiles: its inner cells that are neither empty nor walls */
        for (uint64_t bits = G->inner & ~P->rowE[r] & ~G->wall_row[r]; bits; bits &= bits - 1) {
            int c = ctz64(bits), p = r * W + c, t = g[p];
            Wk->tiles[n++] = p;
            Wk->index[p] = Wk->fill[t];
            Wk->list[G->type_off[t] + Wk->fill[t]++] = p;
            reach_at(G, P, r, c, &Wk->reach[p]);
        }
    Wk->ntiles = n;
}

/* The moves of a position, in move order (the head comment), into out; their number. */
static int list_moves(Work *Wk, const Pos *P, Move *out)
{
    const Game *G = Wk->G;
    const cell_t *g = P->g;
    int k = 0;
    survey(Wk, P);
    for (int i = 0; i < Wk->ntiles; i++) {
        int p = Wk->tiles[i], t = g[p];
        const int *ps = Wk->list + G->type_off[t];
        for (int j = Wk->index[p] + 1, m = Wk->fill[t]; j < m; j++) {
            int q = ps[j];
            if (linked(P->rowE, P->colE, &Wk->reach[p], &Wk->reach[q])) {
                out[k].p = p;
                out[k].q = q;
                k++;
            }
        }
    }
    return k;
}

/* Whether the position has a move, without a whole survey: each tile, in board order, is tested
 * against the earlier tiles of its type as it is found, so the scan stops at the first pair that
 * links. */
static int any_move(Work *Wk, const Pos *P)
{
    const Game *G = Wk->G;
    const cell_t *g = P->g;
    int W = G->W;
    memset(Wk->fill, 0, sizeof(int) * (G->ntypes + 1));
    for (int r = 1; r < G->H - 1; r++)
        for (uint64_t bits = G->inner & ~P->rowE[r] & ~G->wall_row[r]; bits; bits &= bits - 1) {
            int c = ctz64(bits), p = r * W + c, t = g[p];
            Reach *a = &Wk->reach[p];
            reach_at(G, P, r, c, a);
            int *ps = Wk->list + G->type_off[t];
            for (int j = 0; j < Wk->fill[t]; j++)
                if (linked(P->rowE, P->colE, &Wk->reach[ps[j]], a))
                    return 1;
            ps[Wk->fill[t]++] = p;
        }
    return 0;
}

static inline int disjoint(Move a, int p, int q)
{
    return a.p != p && a.p != q && a.q != p && a.q != q;
}

/* Whether after (p, q), played from the position at level lv with its nm moves, the board is
 * cleared or some pair is removable. Uses the position at level lv + 1. */
static int alive_after(Work *Wk, int lv, const Move *moves, int nm, int p, int q)
{
    const Game *G = Wk->G;
    const Pos *P = &Wk->pos[lv];
    if (P->tiles == 2)
        return 1;
    if (!G->gravity)
        for (int i = 0; i < nm; i++)
            if (disjoint(moves[i], p, q))
                return 1;
    Pos *C = &Wk->pos[lv + 1];
    copy_pos(G, C, P);
    remove_pair(G, C, p, q);
    return any_move(Wk, C);
}

/* Whether after (p, q), played from the position at level 0, the board is cleared or some
 * reply keeps it alive (alive_after of the reply). Uses the positions at levels 1 and 2. */
static int deep_after(Work *Wk, const Move *moves, int nm, int p, int q)
{
    const Game *G = Wk->G;
    const Pos *P = &Wk->pos[0];
    if (P->tiles == 2)
        return 1;
    if (!G->gravity) {
        int a = -1;
        for (int i = 0; i < nm && a < 0; i++)
            if (disjoint(moves[i], p, q))
                a = i;
        if (a >= 0)
            for (int i = 0; i < nm; i++)
                if (disjoint(moves[i], p, q) && disjoint(moves[i], moves[a].p, moves[a].q))
                    return 1;
    }
    Pos *C = &Wk->pos[1];
    copy_pos(G, C, P);
    remove_pair(G, C, p, q);
    if (C->tiles == 0)
        return 1;
    Move *replies = Wk->moves[1];
    int nr = list_moves(Wk, C, replies);
    for (int i = 0; i < nr; i++)
        if (alive_after(Wk, 1, replies, nr, replies[i].p, replies[i].q))
            return 1;
    return 0;
}

/* The move `model` plays from the position at level 0, whose nm moves (nm >= 1) are listed. */
static Move choose(Work *Wk, int model, const Move *moves, int nm, uint64_t *rng)
{
    const Game *G = Wk->G;
    const Pos *P = &Wk->pos[0];
    if (model == M_RANDOM)
        return moves[below(rng, nm)];
    if (model == M_NEAREST) {
        int low = 1 << 30, nb = 0;
        for (int i = 0; i < nm; i++) {
            int a = moves[i].p, b = moves[i].q;
            int d = abs(G->row[a] - G->row[b]) + abs(G->col[a] - G->col[b]);
            if (d < low) {
                low = d;
                nb = 0;
            }
            if (d == low)
                Wk->best[nb++] = moves[i];
        }
        return nb > 1 ? Wk->best[below(rng, nb)] : Wk->best[0];
    }
    Move *order = Wk->order, *rest = Wk->rest;
    int nrest = 0, fallback = -1;
    memcpy(order, moves, sizeof(Move) * nm);
    for (int i = 0; i < nm; i++) {
        if (nm - i > 1) {
            int j = i + below(rng, nm - i);
            Move x = order[i];
            order[i] = order[j];
            order[j] = x;
        }
        Move pr = order[i];
        if (model == M_LOOKAHEAD) {
            if (alive_after(Wk, 0, moves, nm, pr.p, pr.q))
                return pr;
        } else if (model == M_CAREFUL) {
            if (P->count[P->g[pr.p]] == 2) {
                if (alive_after(Wk, 0, moves, nm, pr.p, pr.q))
                    return pr;
            } else {
                rest[nrest++] = pr;
            }
        } else if (alive_after(Wk, 0, moves, nm, pr.p, pr.q)) { /* deep */
            if (deep_after(Wk, moves, nm, pr.p, pr.q))
                return pr;
            if (fallback < 0)
                fallback = i;
        }
    }
    for (int i = 0; i < nrest; i++)
        if (alive_after(Wk, 0, moves, nm, rest[i].p, rest[i].q))
            return rest[i];
    return fallback < 0 ? order[0] : order[fallback];
}

/* ---- the moves after a move, without gravity ------------------------------------------------
 *
 * Without gravity a removal only empties cells, so a pair removable before the move stays so
 * until one of its tiles goes, and the moves after (p, q) are those before it, less the pairs
 * touching p or q, plus the pairs whose every path passes through p's or q's cell. Those are
 * found as Playout.remove finds them in Python (llkgen/game/playout.py argues it): for x in
 * p, q and for x's empty run along its row and along its column, the tiles seen from the run
 * (the two tiles that bound it, and the first tile across the run from each of its cells) pair
 * up by type, and each bounding tile is tested in full against every tile of its type. The
 * list stays in move order: the new pairs are sorted and merged in, duplicates dropped. It is
 * the set list_moves would find (a debugging build with LLKGEN_CHECK_MOVES compares the two at
 * every step), at the cost of the cells around two runs instead of a survey of the board. */

static inline int before(Move x, Move y) /* move order */
{
    return x.p < y.p || (x.p == y.p && x.q < y.q);
}

/* Sort the fresh pairs (a few, as a rule: insertion sort) and merge them into the sorted
 * moves[0 .. *nm), dropping duplicates. */
static void merge_fresh(Work *Wk, Move *moves, int *nm)
{
    Move *b = Wk->fresh;
    int nb = Wk->nfresh;
    if (nb == 0)
        return;
    for (int i = 1; i < nb; i++) {
        Move x = b[i];
        int j = i;
        for (; j > 0 && before(x, b[j - 1]); j--)
            b[j] = b[j - 1];
        b[j] = x;
    }
    const Move *a = moves;
    int na = *nm, i = 0, j = 0, k = 0;
    Move *out = Wk->merged;
    while (i < na || j < nb) {
        Move next = j >= nb || (i < na && !before(b[j], a[i])) ? a[i++] : b[j++];
        if (k == 0 || out[k - 1].p != next.p || out[k - 1].q != next.q)
            out[k++] = next;
    }
    memcpy(moves, out, sizeof(Move) * k);
    *nm = k;
    Wk->nfresh = 0;
}

static void add_fresh(Work *Wk, Move *moves, int *nm, int a, int b)
{
    if (Wk->nfresh == Wk->fresh_cap)
        merge_fresh(Wk, moves, nm);
    Move m = {a < b ? a : b, a < b ? b : a};
    Wk->fresh[Wk->nfresh++] = m;
}

/* The pairs that became removable through the empty run containing cell x: along its row
 * (horizontal) or its column. */
static void links_through(Work *Wk, const Pos *P, Move *moves, int *nm, int x, int horizontal)
{
    const Game *G = Wk->G;
    const cell_t *g = P->g;
    int W = G->W, H = G->H, r = G->row[x], c = G->col[x];
    int lo, hi, nseen = 0, ends[2], nends = 0;
    reach(horizontal ? P->rowE[r] : P->colE[c], horizontal ? c : r, &lo, &hi);
    int limit = horizontal ? W : H;
    for (int side = 0; side < 2; side++) { /* the tiles bounding the run */
        int i = side ? hi + 1 : lo - 1;
        if (i < 0 || i >= limit)
            continue;
        int e = horizontal ? r * W + i : i * W + c;
        if (g[e] > 0)
            ends[nends++] = Wk->seen[nseen++] = e;
    }
    for (int i = lo; i <= hi; i++) { /* across the run from each of its cells */
        int vlo, vhi, across = horizontal ? H : W;
        reach(horizontal ? P->colE[i] : P->rowE[i], horizontal ? r : c, &vlo, &vhi);
        for (int side = 0; side < 2; side++) {
            int j = side ? vhi + 1 : vlo - 1;
            if (j < 0 || j >= across)
                continue;
            int e = horizontal ? j * W + i : i * W + j;
            if (g[e] > 0)
                Wk->seen[nseen++] = e;
        }
    }
    /* pair the seen tiles by type: each against those of its type seen before it (a list per
     * type, valid for this run only: its stamp) */
    Wk->stamp++;
    for (int i = 0; i < nseen; i++) {
        int e = Wk->seen[i], t = g[e];
        if (Wk->type_stamp[t] != Wk->stamp) {
            Wk->type_stamp[t] = Wk->stamp;
            Wk->type_head[t] = -1;
        }
        for (int j = Wk->type_head[t]; j >= 0; j = Wk->seen_next[j])
            if (Wk->seen[j] != e)
                add_fresh(Wk, moves, nm, Wk->seen[j], e);
        Wk->seen_next[i] = Wk->type_head[t];
        Wk->type_head[t] = i;
    }
    for (int i = 0; i < nends; i++) {
        int e = ends[i], t = g[e];
        Reach a, b;
        reach_at(G, P, G->row[e], G->col[e], &a);
        for (int j = G->type_off[t]; j < G->type_off[t + 1]; j++) {
            int f = Wk->start_list[j];
            if (f == e || g[f] != t)
                continue;
            reach_at(G, P, G->row[f], G->col[f], &b);
            if (linked(P->rowE, P->colE, &a, &b))
                add_fresh(Wk, moves, nm, e, f);
        }
    }
}

/* The moves after (p, q) was removed from a position without gravity whose moves were
 * moves[0 .. nm): updated in place; their number. */
static int moves_after(Work *Wk, const Pos *P, Move *moves, int nm, int p, int q)
{
    int k = 0;
    for (int i = 0; i < nm; i++)
        if (disjoint(moves[i], p, q))
            moves[k++] = moves[i];
    nm = k;
    Wk->nfresh = 0;
    const Game *G = Wk->G;
    int rp = G->row[p], cp = G->col[p], rq = G->row[q], cq = G->col[q], lo, hi;
    for (int h = 0; h < 2; h++) {
        links_through(Wk, P, moves, &nm, p, h);
        /* q's run is p's when they share it (a pair side by side, or in line across empty
         * cells): once is enough */
        if (h && rp == rq) {
            reach(P->rowE[rp], cp, &lo, &hi);
            if (lo <= cq && cq <= hi)
                continue;
        }
        if (!h && cp == cq) {
            reach(P->colE[cp], rp, &lo, &hi);
            if (lo <= rq && rq <= hi)
                continue;
        }
        links_through(Wk, P, moves, &nm, q, h);
    }
    merge_fresh(Wk, moves, &nm);
#ifdef LLKGEN_CHECK_MOVES
    {
        Move *check = Wk->moves[1];
        int nc = list_moves(Wk, P, check);
        if (nc != nm || memcmp(check, moves, sizeof(Move) * nm) != 0) {
            fprintf(stderr, "moves_after: %d moves, list_moves %d\n", nm, nc);
            abort();
        }
    }
#endif
    return nm;
}

/* The start position and its moves, into Wk->start and Wk->start_moves: every playthrough
 * begins from copies of them. */
static void take_stock_of_start(Work *Wk)
{
    const Game *G = Wk->G;
    Pos *S = &Wk->start;
    memcpy(S->g, G->start, sizeof(cell_t) * G->n);
    memset(S->count, 0, sizeof(int) * (G->ntypes + 1));
    S->tiles = 0;
    S->settled = G->start_settled;
    for (int p = 0; p < G->n; p++)
        if (S->g[p] > 0) {
            S->count[S->g[p]]++;
            S->tiles++;
        }
    masks(G, S);
    Wk->start_nm = S->tiles ? list_moves(Wk, S, Wk->start_moves) : 0;
    memcpy(Wk->start_list, Wk->list, sizeof(int) * G->ntiles); /* list_moves' survey: by type */
    Wk->incremental = !G->gravity && S->tiles >= INCREMENTAL_TILES;
}

/* One playthrough from the start; 1 if it clears the board. With record, the moves played are
 * appended to it as ((row, col), (row, col)) on the board at that moment. -1 on an error (set). */
static int play(Work *Wk, int model, uint64_t base, long long k, PyObject *record)
{
    const Game *G = Wk->G;
    Pos *P = &Wk->pos[0];
    uint64_t rng = mix64(base + ((uint64_t)k + 1) * GAMMA);
    if (Wk->start_nm < 0)
        take_stock_of_start(Wk);
    copy_pos(G, P, &Wk->start);
    Move *moves = Wk->moves[0];
    int nm = Wk->start_nm; /* the start's moves, listed once */
    memcpy(moves, Wk->start_moves, sizeof(Move) * nm);
    while (P->tiles) {
        if (nm == 0)
            return 0;
        Move m = choose(Wk, model, moves, nm, &rng);
        if (record != NULL) {
            PyObject *step = Py_BuildValue("((ii)(ii))", G->row[m.p] - 1, G->col[m.p] - 1, G->row[m.q] - 1,
                                           G->col[m.q] - 1);
            if (step == NULL || PyList_Append(record, step) < 0) {
                Py_XDECREF(step);
                return -1;
            }
            Py_DECREF(step);
        }
        remove_pair(G, P, m.p, m.q);
        if (P->tiles)
            nm = Wk->incremental ? moves_after(Wk, P, moves, nm, m.p, m.q) : list_moves(Wk, P, moves);
    }
    return 1;
}

/* ---- setting up, and the Python functions ------------------------------------------------ */

static void game_free(Game *G)
{
    free(G->row);
    free(G->col);
    free(G->line_off);
    free(G->line_cells);
    free(G->line_of);
    free(G->type_off);
    free(G->start);
}

static void work_free(Work *Wk)
{
    for (int i = 0; i < 3; i++) {
        free(Wk->pos[i].g);
        free(Wk->pos[i].count);
    }
    free(Wk->start.g);
    free(Wk->start.count);
    free(Wk->start_moves);
    free(Wk->start_list);
    free(Wk->fresh);
    free(Wk->merged);
    free(Wk->seen);
    free(Wk->seen_next);
    free(Wk->type_head);
    free(Wk->type_stamp);
    free(Wk->moves[0]);
    free(Wk->moves[1]);
    free(Wk->order);
    free(Wk->rest);
    free(Wk->best);
    free(Wk->list);
    free(Wk->tiles);
    free(Wk->fill);
    free(Wk->index);
    free(Wk->reach);
}

static int cmp_type(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* Read the board and build the game and the working memory; 0 on an error (set). */
static int setup(Game *G, Work *Wk, int rows, int cols, PyObject *cells_obj, int gravity, int border)
{
    if (rows < 1 || cols < 1 || rows > 62 || cols > 62) {
        PyErr_SetString(PyExc_ValueError, "board: expected 1 to 62 rows and columns");
        return 0;
    }
    if (gravity < 0 || gravity > 4) {
        PyErr_SetString(PyExc_ValueError, "gravity: expected 0 (none), 1 (down), 2 (up), 3 (left) or 4 (right)");
        return 0;
    }
    /* a tuple of the cells: a list could be changed under us by an element's __index__ */
    PyObject *seq = PySequence_Tuple(cells_obj);
    if (seq == NULL)
        return 0;
    if (PyTuple_GET_SIZE(seq) != (Py_ssize_t)rows * cols) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "cells: expected rows * cols values");
        return 0;
    }
    int area = rows * cols;
    long long *values = malloc(sizeof(long long) * area), *types = malloc(sizeof(long long) * (area + 1));
    if (values == NULL || types == NULL) {
        Py_DECREF(seq);
        free(values);
        free(types);
        PyErr_NoMemory();
        return 0;
    }
    int ntiles = 0, ok = 1;
    for (int i = 0; i < area; i++) {
        long long v = PyLong_AsLongLong(PyTuple_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) {
            ok = 0;
            break;
        }
        if (v < WALL) {
            PyErr_SetString(PyExc_ValueError, "cells: expected -1 (wall), 0 (empty) or a tile type >= 1");
            ok = 0;
            break;
        }
        values[i] = v;
        if (v > 0)
            types[ntiles++] = v;
    }
    Py_DECREF(seq);
    if (!ok) {
        free(values);
        free(types);
        return 0;
    }
    /* the types, renumbered 1..ntypes in increasing order */
    qsort(types, ntiles, sizeof(long long), cmp_type);
    int ntypes = 0;
    size_t pairs = 1; /* room for a move list: every same-type pair of tiles, at most */
    for (int i = 0, run = 0; i < ntiles; i++) {
        run = i > 0 && types[i] == types[i - 1] ? run + 1 : 0;
        pairs += (size_t)run;
        if (ntypes == 0 || types[ntypes - 1] != types[i])
            types[ntypes++] = types[i];
    }
    G->rows = rows;
    G->cols = cols;
    G->H = rows + 2;
    G->W = cols + 2;
    G->n = G->H * G->W;
    G->gravity = gravity;
    G->ntypes = ntypes;
    G->ntiles = ntiles;
    int n = G->n;
    G->row = malloc(sizeof(int) * n);
    G->col = malloc(sizeof(int) * n);
    G->start = calloc(n, sizeof(cell_t));
    G->type_off = calloc(ntypes + 2, sizeof(int));
    int vertical = gravity == 1 || gravity == 2, len = vertical ? rows : cols;
    G->nlines = gravity ? (vertical ? cols : rows) : 0;
    G->line_off = malloc(sizeof(int) * (G->nlines + 1));
    G->line_cells = malloc(sizeof(int) * (area + 1));
    G->line_of = malloc(sizeof(int) * n);
    for (int i = 0; i < 3; i++) {
        Wk->pos[i].g = malloc(sizeof(cell_t) * n);
        Wk->pos[i].count = calloc(ntypes + 2, sizeof(int));
    }
    Wk->start.g = malloc(sizeof(cell_t) * n);
    Wk->start.count = calloc(ntypes + 2, sizeof(int));
    Wk->start_moves = malloc(sizeof(Move) * pairs);
    Wk->start_nm = -1;
    Wk->start_list = malloc(sizeof(int) * (ntiles + 1));
    Wk->fresh_cap = 256;
    Wk->fresh = malloc(sizeof(Move) * Wk->fresh_cap);
    Wk->merged = malloc(sizeof(Move) * pairs);
    Wk->seen = malloc(sizeof(int) * 4 * (rows + cols + 4));
    Wk->seen_next = malloc(sizeof(int) * 4 * (rows + cols + 4));
    Wk->type_head = calloc(ntypes + 2, sizeof(int));
    Wk->type_stamp = calloc(ntypes + 2, sizeof(int));
    Wk->stamp = 0;
    Wk->G = G;
    Wk->moves[0] = malloc(sizeof(Move) * pairs);
    Wk->moves[1] = malloc(sizeof(Move) * pairs);
    Wk->order = malloc(sizeof(Move) * pairs);
    Wk->rest = malloc(sizeof(Move) * pairs);
    Wk->best = malloc(sizeof(Move) * pairs);
    Wk->list = malloc(sizeof(int) * (ntiles + 1));
    Wk->tiles = malloc(sizeof(int) * (ntiles + 1));
    Wk->fill = calloc(ntypes + 2, sizeof(int));
    Wk->index = calloc(n, sizeof(int));
    Wk->reach = calloc(n, sizeof(Reach));
    ok = Wk->start.g && Wk->start.count && Wk->start_moves && Wk->start_list && Wk->fresh && Wk->merged && Wk->seen &&
         Wk->seen_next && Wk->type_head && Wk->type_stamp &&
         G->row && G->col && G->start && G->type_off && G->line_off && G->line_cells && G->line_of && Wk->moves[0] &&
         Wk->moves[1] && Wk->order && Wk->rest && Wk->best && Wk->list && Wk->tiles && Wk->fill && Wk->index && Wk->reach;
    for (int i = 0; i < 3; i++)
        ok = ok && Wk->pos[i].g && Wk->pos[i].count;
    if (!ok) {
        free(values);
        free(types);
        PyErr_NoMemory();
        return 0;
    }
    for (int p = 0; p < n; p++) {
        int r = p / G->W, c = p % G->W;
        G->row[p] = r;
        G->col[p] = c;
        int ring = r == 0 || c == 0 || r == G->H - 1 || c == G->W - 1;
        G->start[p] = ring ? (border ? 0 : WALL) : 0;
        if (ring && border) {
            G->ringE_row[r] |= 1ULL << c;
            G->ringE_col[c] |= 1ULL << r;
        }
    }
    for (int i = 0; i < area; i++) {
        int p = (i / cols + 1) * G->W + i % cols + 1;
        long long v = values[i];
        if (v > 0) {
            int lo = 0, hi = ntypes - 1; /* binary search: the type's new number */
            while (lo < hi) {
                int mid = (lo + hi) / 2;
                if (types[mid] < v)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            G->start[p] = (cell_t)(lo + 1);
            G->type_off[lo + 2]++;
        } else {
            G->start[p] = (cell_t)v;
            if (v == WALL)
                G->wall_row[i / cols + 1] |= 1ULL << (i % cols + 1);
        }
    }
    for (int t = 2; t <= ntypes + 1; t++) /* type t's tiles from type_off[t]: the counts before it */
        G->type_off[t] += G->type_off[t - 1];
    for (int p = 0; p < n; p++)
        G->line_of[p] = -1;
    G->inner = span(1, cols);
    G->start_settled = 1;
    for (int k = 0; k < G->nlines; k++) {
        G->line_off[k] = k * len;
        int gap = 0;
        for (int i = 0; i < len; i++) {
            int r = gravity == 1 ? rows - 1 - i : gravity == 2 ? i : k;
            int c = gravity == 3 ? i : gravity == 4 ? cols - 1 - i : k;
            int p = (r + 1) * G->W + c + 1;
            G->line_cells[k * len + i] = p;
            G->line_of[p] = k;
            if (G->start[p] == WALL) /* a tile above a gap in its run would fall: not settled */
                gap = 0;
            else if (G->start[p] == 0)
                gap = 1;
            else if (gap)
                G->start_settled = 0;
        }
    }
    G->line_off[G->nlines] = G->nlines * len;
    free(values);
    free(types);
    return 1;
}

static int read_model(int model)
{
    if (model < 0 || model >= N_MODELS) {
        PyErr_SetString(PyExc_ValueError, "model: expected 0 (random) to 4 (deep)");
        return 0;
    }
    return 1;
}

static int read_base(PyObject *obj, uint64_t *base)
{
    unsigned long long b = PyLong_AsUnsignedLongLong(obj);
    if (b == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_SetString(PyExc_ValueError, "base: expected an integer in [0, 2**64)");
        return 0;
    }
    *base = (uint64_t)b;
    return 1;
}

static PyObject *pl_playthroughs(PyObject *self, PyObject *args)
{
    (void)self;
    int rows, cols, gravity, border, model;
    PyObject *cells, *base_obj;
    long long k0, k1;
    uint64_t base;
    if (!PyArg_ParseTuple(args, "iiOiiiOLL", &rows, &cols, &cells, &gravity, &border, &model, &base_obj, &k0, &k1))
        return NULL;
    if (!read_model(model) || !read_base(base_obj, &base))
        return NULL;
    if (k0 < 0 || k1 < k0) {
        PyErr_SetString(PyExc_ValueError, "k0, k1: expected 0 <= k0 <= k1");
        return NULL;
    }
    Game G;
    Work Wk;
    memset(&G, 0, sizeof G);
    memset(&Wk, 0, sizeof Wk);
    PyObject *result = NULL;
    if (setup(&G, &Wk, rows, cols, cells, gravity, border)) {
        /* Without a record, a playthrough touches no Python object: the runs go without the GIL,
         * so other threads run meanwhile, and Ctrl-C (any signal handler that raises) is seen
         * between runs rather than at the end of the batch. */
        long long cleared = 0, k = k0;
        int interrupted = 0;
        while (k < k1 && !interrupted) {
            long long stop = k1 - k > RUNS_PER_CHECK ? k + RUNS_PER_CHECK : k1;
            Py_BEGIN_ALLOW_THREADS
            for (; k < stop; k++)
                cleared += play(&Wk, model, base, k, NULL);
            Py_END_ALLOW_THREADS
            interrupted = PyErr_CheckSignals() < 0;
        }
        result = interrupted ? NULL : PyLong_FromLongLong(cleared);
    }
    work_free(&Wk);
    game_free(&G);
    return result;
}

static PyObject *pl_play(PyObject *self, PyObject *args)
{
    (void)self;
    int rows, cols, gravity, border, model;
    PyObject *cells, *base_obj;
    long long k;
    uint64_t base;
    if (!PyArg_ParseTuple(args, "iiOiiiOL", &rows, &cols, &cells, &gravity, &border, &model, &base_obj, &k))
        return NULL;
    if (!read_model(model) || !read_base(base_obj, &base))
        return NULL;
    if (k < 0) {
        PyErr_SetString(PyExc_ValueError, "k: expected 0 or more");
        return NULL;
    }
    Game G;
    Work Wk;
    memset(&G, 0, sizeof G);
    memset(&Wk, 0, sizeof Wk);
    PyObject *result = NULL, *record = NULL;
    if (setup(&G, &Wk, rows, cols, cells, gravity, border) && (record = PyList_New(0)) != NULL) {
        int cleared = play(&Wk, model, base, k, record);
        if (cleared >= 0)
            result = Py_BuildValue("(NO)", PyBool_FromLong(cleared), record);
    }
    Py_XDECREF(record);
    work_free(&Wk);
    game_free(&G);
    return result;
}

static PyMethodDef methods[] = {
    {"playthroughs", pl_playthroughs, METH_VARARGS,
     "playthroughs(rows, cols, cells, gravity, border, model, base, k0, k1) -> int: how many of "
     "playthroughs k0 .. k1 - 1 of the model clear the board (see the source)."},
    {"play", pl_play, METH_VARARGS,
     "play(rows, cols, cells, gravity, border, model, base, k) -> (cleared, moves): playthrough k, "
     "with the moves it played as ((row, col), (row, col))."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_players", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__players(void) { return PyModule_Create(&module); }
