/* The model players in C: the same five players as llkgen/analysis/players.py, making the same
 * choices with the same random numbers, so a playthrough clears the same boards with the same
 * moves whichever of the two runs it. llkgen/analysis/native_players.py is the only caller;
 * tests/analysis/test_native_players.py holds the two to the same moves, model by model.
 *
 * This file holds, in order: a position and the moves of a position; the moves after a move
 * (moves_after, moves_after_gravity); the random numbers and the models; setting up and freeing;
 * the Python functions. The board (reading it, its lines, gravity's compaction) is
 * ../_native/board.h and the link rule ../_native/links.h, shared with the gravity search.
 *
 * Why C: a measurement of a level plays it hundreds of times, and in a regular install that
 * was most of make's time (docs/difficulty.md, "Where make's time goes"). The board here is the
 * gravity search's: padded with a one-cell ring, each row's and column's empty cells as one
 * 64-bit mask, and the link test of ../_native/links.h, so a step costs a survey of the board
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
 * settle the two-move test. Under gravity, once the board is settled, a removal changes only
 * the cells from each removed tile outwards to the next wall (shifts()), and empties without
 * filling: a move clear of those cells stays a move, which settles the one-move test without
 * playing it, and the two-move test when a second such move is clear of the first's cells too
 * (players.py plays those tests out; the answers are the same). Because removing tiles never
 * blocks a path without gravity, a playthrough there updates its moves after each move rather
 * than listing them again (moves_after, from 64 tiles up); under gravity, on a settled board, a
 * removal only empties cells too, and the cells it changes are those of two runs, so the moves
 * are updated around them (moves_after_gravity, from 64 tiles up). Either way the list is the
 * one list_all_moves gives (a debugging build with LLKGEN_CHECK_MOVES compares them at every
 * step). On a full 32x32 board of one type under gravity, where every same-type pair is a
 * candidate, a playthrough cost 0.41 s listed afresh and 0.049 s updated; 48x48, 4.4 s and
 * 0.25 s; 62x62, 0.55-0.8 s updated; a 10x16 board of 40 types x 4, 0.06 and 0.05 ms (measured
 * by benchmarks/players_big_bench.py). Every playthrough of a batch starts from one
 * stock-taking of the start.
 *
 * A batch (playthroughs()) runs without the GIL, a few runs at a time, and looks for a pending
 * signal in between: Ctrl-C stops it within a few runs.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../_native/board.h"

/* ---- a position and its moves ------------------------------------------------------------ */

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
    int *type_head;         /* per type: its last seen tile, for the run of type_stamp's stamp */
    unsigned *type_stamp, stamp;
    int incremental;        /* whether a playthrough updates its moves (moves_after) or lists them */
    cell_t *prev;           /* under gravity: the board before the move, on the two lines it changes */
    unsigned char *dirty;   /* per padded cell: changed by the move (moves_after_gravity; all 0 between) */
    int *changed;           /* the changed cells */
    Move *order;            /* the random order of the candidates */
    Move *rest;             /* careful's non-completing candidates */
    Move *best;             /* nearest's closest moves */
    int *list, *fill, *index; /* tiles by type (list from type_off, fill counts), and each tile's place */
    int *tiles, ntiles;     /* the tiles, in board order, at the last survey */
    Reach *reach;           /* per padded cell */
} Work;

static void copy_pos(const Game *G, Pos *to, const Pos *from)
{
    memcpy(to->g, from->g, sizeof(cell_t) * G->n);
    memcpy(to->count, from->count, sizeof(int) * (G->ntypes + 1));
    memcpy(to->rowE, from->rowE, sizeof(uint64_t) * G->H);
    memcpy(to->colE, from->colE, sizeof(uint64_t) * G->W);
    to->tiles = from->tiles;
    to->settled = from->settled;
}

/* Compact gravity line k towards the gravity side (../_native/board.h) and bring the masks of
 * its cells up to date. */
static void fall_line(const Game *G, Pos *P, int k)
{
    cell_t *g = P->g;
    const int *line = G->line_cells + G->line_off[k];
    int len = G->line_off[k + 1] - G->line_off[k];
    compact_line(G, k, g, NULL);
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
    assert(p != q && g[p] > 0 && g[p] == g[q] && P->count[g[p]] >= 2); /* two tiles of one type */
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
    assert_settled(G, g); /* after every move: only p's and q's lines changed */
}

/* The tiles of a position by type, in board order, with each tile's reach. */
static void survey_tiles(Work *Wk, const Pos *P)
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
            reach_at(G, g, P->rowE, P->colE, p, r, c, &Wk->reach[p]);
        }
    Wk->ntiles = n;
    assert(n == P->tiles);
}

/* The moves of a position, in move order (the head comment), into out; their number. */
static int list_all_moves(Work *Wk, const Pos *P, Move *out)
{
    const Game *G = Wk->G;
    const cell_t *g = P->g;
    int k = 0;
    survey_tiles(Wk, P);
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
            reach_at(G, g, P->rowE, P->colE, p, r, c, a);
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

/* Under gravity, on a settled board: whether removing the tile at x can change cell c. Only the
 * cells from x outwards in x's run, up to the next wall, can: each takes the tile beyond it, and
 * the run's top tile leaves its cell empty. No cell fills that was empty, so every path open
 * before the removal stays open. */
static inline int shifts(const Game *G, int x, int c)
{
    return G->line_of[c] == G->line_of[x] && G->depth[c] >= G->depth[x] && G->depth[c] <= G->seg_top[x];
}

/* Whether move m is surely still a move after (p, q) is played: without gravity when it shares
 * no tile with it (removing tiles never blocks a path); under gravity, on a settled board only,
 * when it is clear of the cells the removal shifts (its tiles stay put, its paths stay open). */
static inline int untouched(const Game *G, Move m, int p, int q)
{
    if (!G->gravity)
        return disjoint(m, p, q);
    return !shifts(G, p, m.p) && !shifts(G, q, m.p) && !shifts(G, p, m.q) && !shifts(G, q, m.q);
}

/* ---- the moves after a move ------------------------------------------------------------- */

/* Without gravity (moves_after) and under gravity on a settled board (moves_after_gravity,
 * below, which argues its own case).
 *
 * Without gravity a removal only empties cells, so a pair removable before the move stays so
 * until one of its tiles goes, and the moves after (p, q) are those before it, less the pairs
 * touching p or q, plus the pairs whose every path passes through p's or q's cell. Those are
 * found as Playout.remove finds them in Python (llkgen/game/playout.py argues it): for x in
 * p, q and for x's empty run along its row and along its column, the tiles seen from the run
 * (the two tiles that bound it, and the first tile across the run from each of its cells) pair
 * up by type (a path of at most one turn, or one whose middle segment runs through x), and
 * each bounding tile is tested in full against every tile of its type (a path of two turns
 * whose first or last segment runs through x). The
 * list stays in move order: the new pairs are sorted and merged in, duplicates dropped. It is
 * the set list_all_moves would find (a debugging build with LLKGEN_CHECK_MOVES compares the two at
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
    for (int x = 1; x < k; x++) /* in move order, no pair twice */
        assert(before(out[x - 1], out[x]));
    memcpy(moves, out, sizeof(Move) * k);
    *nm = k;
    Wk->nfresh = 0;
}

static void add_fresh(Work *Wk, Move *moves, int *nm, int a, int b)
{
    if (Wk->nfresh == Wk->fresh_cap)
        merge_fresh(Wk, moves, nm);
    Move m = {a < b ? a : b, a < b ? b : a};
    assert(a != b && Wk->nfresh < Wk->fresh_cap);
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
            assert(nseen <= 4 * (G->rows + G->cols + 4)); /* room in seen */
        }
    }
    /* pair the seen tiles by type: each against those of its type seen before it (a list per
     * type, valid for this run only: its stamp) */
    if (++Wk->stamp == 0) { /* wrapped round (after 2^32 runs): no list may look current */
        memset(Wk->type_stamp, 0, sizeof(unsigned) * (Wk->G->ntypes + 2));
        Wk->stamp = 1;
    }
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
        reach_at(G, g, P->rowE, P->colE, e, G->row[e], G->col[e], &a);
        /* the tiles of e's type: without gravity the start's (tiles never move; those gone are
         * skipped), under gravity this position's survey (moves_after_gravity takes it first) */
        const int *ts = G->gravity ? Wk->list + G->type_off[t] : Wk->start_list + G->type_off[t];
        int nt = G->gravity ? Wk->fill[t] : G->type_off[t + 1] - G->type_off[t];
        for (int j = 0; j < nt; j++) {
            int f = ts[j];
            if (f == e || g[f] != t)
                continue;
            reach_at(G, g, P->rowE, P->colE, f, G->row[f], G->col[f], &b);
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
        int nc = list_all_moves(Wk, P, check);
        if (nc != nm || memcmp(check, moves, sizeof(Move) * nm) != 0) {
            fprintf(stderr, "moves_after: %d moves, list_all_moves %d\n", nm, nc);
            abort();
        }
    }
#endif
    return nm;
}

/* Under gravity: the moves after (p, q) was removed from a settled position whose moves were
 * moves[0 .. nm) and whose board was Wk->prev on p's and q's lines (the only lines a removal
 * changes, remove_pair); updated in place, their number.
 *
 * On a settled board a removal compacts the run from the removed tile outwards: each cell there
 * takes the tile beyond it, the last tile's cell empties, and no empty cell fills (shifts()).
 * So a cell holding the same type before and after is, for the moves, the same tile: a pair of
 * two such cells that linked before still links (its path's cells were empty and still are).
 * The moves after are therefore those before whose two cells are unchanged, plus:
 * - each changed cell that holds a tile (another type slid in), tested in full against every
 *   tile of its type;
 * - the pairs a newly empty cell opens, found by links_through as for a removal without
 *   gravity: a pair of unchanged cells that did not link before and does now has a path
 *   through a cell that was a tile and is empty now, and those are the changed empty cells.
 * merge_fresh keeps the move order and drops duplicates; a debugging build with
 * LLKGEN_CHECK_MOVES compares the result with list_all_moves at every step. */
static int moves_after_gravity(Work *Wk, const Pos *P, Move *moves, int nm, int p, int q)
{
    const Game *G = Wk->G;
    const cell_t *g = P->g, *prev = Wk->prev;
    unsigned char *dirty = Wk->dirty;
    int *changed = Wk->changed, nchanged = 0;
    int lines[2] = {G->line_of[p], G->line_of[q]};
    for (int l = 0; l < (lines[0] == lines[1] ? 1 : 2); l++)
        for (int i = G->line_off[lines[l]]; i < G->line_off[lines[l] + 1]; i++) {
            int c = G->line_cells[i];
            if (prev[c] != g[c]) {
                dirty[c] = 1;
                changed[nchanged++] = c;
                assert(nchanged <= 2 * (G->rows + G->cols + 2));
            }
        }
    int k = 0;
    for (int i = 0; i < nm; i++)
        if (!dirty[moves[i].p] && !dirty[moves[i].q])
            moves[k++] = moves[i];
    nm = k;
    Wk->nfresh = 0;
    survey_tiles(Wk, P); /* this position's tiles by type, with their reach */
    for (int i = 0; i < nchanged; i++) {
        int c = changed[i], t = g[c];
        if (t > 0) {
            const int *ts = Wk->list + G->type_off[t];
            for (int j = 0; j < Wk->fill[t]; j++)
                if (ts[j] != c && linked(P->rowE, P->colE, &Wk->reach[c], &Wk->reach[ts[j]]))
                    add_fresh(Wk, moves, &nm, c, ts[j]);
        }
    }
    for (int i = 0; i < nchanged; i++) {
        int c = changed[i];
        assert(g[c] != WALL);
        if (g[c] == 0) {
            links_through(Wk, P, moves, &nm, c, 0);
            links_through(Wk, P, moves, &nm, c, 1);
        }
        dirty[c] = 0;
    }
    merge_fresh(Wk, moves, &nm);
#ifdef LLKGEN_CHECK_MOVES
    {
        Move *check = Wk->moves[1];
        int nc = list_all_moves(Wk, P, check);
        if (nc != nm || memcmp(check, moves, sizeof(Move) * nm) != 0) {
            fprintf(stderr, "moves_after_gravity: %d moves, list_all_moves %d\n", nm, nc);
            abort();
        }
    }
#endif
    return nm;
}

#define GAMMA 0x9E3779B97F4A7C15ULL
/* Without gravity, boards of at least this many tiles update their moves after each move
 * (moves_after) rather than list them again: on smaller ones a survey is cheaper than the
 * bookkeeping (easy's 6 x 8 ran at 0.6-0.7x the speed incremental, medium's 8 x 12 at 1.1-1.6x,
 * hard's 10 x 16 at 1.5-2.3x). Either way the moves are the same. */
#ifndef INCREMENTAL_TILES /* a debugging build may set it (to 2: every board without gravity) */
#define INCREMENTAL_TILES 64
#endif
/* Under gravity, the same from this many tiles (moves_after_gravity): 1.2-1.6x the speed on
 * 10x16 to 16x30 boards of 4 tiles a type, even (0.9-1.2x, within the noise) on 6x8 and 8x12. */
#ifndef INCREMENTAL_GRAVITY_TILES
#define INCREMENTAL_GRAVITY_TILES 64
#endif
/* deep's shortcut tries this many replies that a move leaves in place. */
#define DEEP_REPLIES_TRIED 8
/* Playthroughs of a batch between two looks for a pending signal (with the GIL). */
#define RUNS_PER_CHECK 4

enum { M_RANDOM, M_NEAREST, M_LOOKAHEAD, M_CAREFUL, M_DEEP, N_MODELS };

static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline int below(uint64_t *state, int n)
{
    assert(n >= 1);
    *state += GAMMA;
    uint64_t x = mix64(*state);
#ifdef _MSC_VER
    return (int)__umulh(x, (uint64_t)n);
#else
    return (int)(((unsigned __int128)x * (uint64_t)n) >> 64);
#endif
}

/* Whether after (p, q), played from the position at level lv, some pair is removable: played
 * on the position at level lv + 1. */
static int played_and_alive(Work *Wk, int lv, int p, int q)
{
    Pos *C = &Wk->pos[lv + 1];
    copy_pos(Wk->G, C, &Wk->pos[lv]);
    remove_pair(Wk->G, C, p, q);
    return any_move(Wk, C);
}

/* A shortcut's yes for alive_after; a debugging build (LLKGEN_CHECK_MOVES) plays the move to
 * confirm it. */
static int check_alive(Work *Wk, int lv, int p, int q)
{
#ifdef LLKGEN_CHECK_MOVES
    if (!played_and_alive(Wk, lv, p, q)) {
        fprintf(stderr, "alive_after's shortcut is wrong after (%d, %d) at level %d\n", p, q, lv);
        abort();
    }
#else
    (void)Wk;
    (void)lv;
    (void)p;
    (void)q;
#endif
    return 1;
}

/* Whether the shortcuts of alive_after and deep_after hold on the position P (untouched()). */
static inline int shortcuts_hold(const Game *G, const Pos *P)
{
    return !G->gravity || P->settled;
}

/* Whether after (p, q), played from the position at level lv with its nm moves, the board is
 * cleared or some pair is removable: a move (p, q) leaves in place, or else played out on the
 * position at level lv + 1. */
static int alive_after(Work *Wk, int lv, const Move *moves, int nm, int p, int q)
{
    const Game *G = Wk->G;
    const Pos *P = &Wk->pos[lv];
    if (P->tiles == 2)
        return 1;
    if (shortcuts_hold(G, P))
        for (int i = 0; i < nm; i++)
            if (untouched(G, moves[i], p, q))
                return check_alive(Wk, lv, p, q);
    return played_and_alive(Wk, lv, p, q);
}

/* Whether after (p, q), played from the position at level 0 (not its last pair), some reply
 * keeps the board alive (alive_after of the reply): played on the positions at levels 1 and 2. */
static int played_and_deep(Work *Wk, int p, int q)
{
    const Game *G = Wk->G;
    Pos *C = &Wk->pos[1];
    copy_pos(G, C, &Wk->pos[0]);
    remove_pair(G, C, p, q);
    Move *replies = Wk->moves[1];
    int nr = list_all_moves(Wk, C, replies);
    for (int i = 0; i < nr; i++)
        if (alive_after(Wk, 1, replies, nr, replies[i].p, replies[i].q))
            return 1;
    return 0;
}

/* A shortcut's yes for deep_after; a debugging build (LLKGEN_CHECK_MOVES) plays it to confirm. */
static int check_deep(Work *Wk, int p, int q)
{
#ifdef LLKGEN_CHECK_MOVES
    if (!played_and_deep(Wk, p, q)) {
        fprintf(stderr, "deep_after's shortcut is wrong after (%d, %d)\n", p, q);
        abort();
    }
#else
    (void)Wk;
    (void)p;
    (void)q;
#endif
    return 1;
}

/* Whether after (p, q), played from the position at level 0, the board is cleared or some
 * reply keeps it alive (alive_after of the reply). Uses the positions at levels 1 and 2. */
static int deep_after(Work *Wk, const Move *moves, int nm, int p, int q)
{
    const Game *G = Wk->G;
    const Pos *P = &Wk->pos[0];
    if (P->tiles == 2)
        return 1;
    /* a reply a that (p, q) leaves in place, and a move b that neither touches: after (p, q)
     * and a, b is still a move. The first few such replies are tried (any one will do). */
    if (shortcuts_hold(G, P))
        for (int i = 0, tried = 0; i < nm && tried < DEEP_REPLIES_TRIED; i++) {
            Move a = moves[i];
            if (!untouched(G, a, p, q))
                continue;
            tried++;
            for (int j = 0; j < nm; j++)
                if (untouched(G, moves[j], p, q) && untouched(G, moves[j], a.p, a.q))
                    return check_deep(Wk, p, q);
        }
    return played_and_deep(Wk, p, q);
}

/* The move `model` plays from the position at level 0, whose nm moves (nm >= 1) are listed. */
static Move choose(Work *Wk, int model, const Move *moves, int nm, uint64_t *rng)
{
    const Game *G = Wk->G;
    const Pos *P = &Wk->pos[0];
    assert(nm >= 1);
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
    board_masks(G, S->g, S->rowE, S->colE);
    assert(S->tiles == G->ntiles);
    Wk->start_nm = S->tiles ? list_all_moves(Wk, S, Wk->start_moves) : 0;
    memcpy(Wk->start_list, Wk->list, sizeof(int) * G->ntiles); /* list_all_moves' survey: by type */
    Wk->incremental = S->tiles >= (G->gravity ? INCREMENTAL_GRAVITY_TILES : INCREMENTAL_TILES);
}

/* Copy the cells of p's and q's gravity lines from P's board into prev. */
static void save_lines(const Game *G, const Pos *P, cell_t *prev, int p, int q)
{
    int lines[2] = {G->line_of[p], G->line_of[q]};
    for (int l = 0; l < 2; l++)
        for (int i = G->line_off[lines[l]]; i < G->line_off[lines[l] + 1]; i++)
            prev[G->line_cells[i]] = P->g[G->line_cells[i]];
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
        /* under gravity, moves_after_gravity needs a settled board before the move, and the
         * board before it on the two lines the move changes */
        int after_gravity = Wk->incremental && G->gravity && P->settled;
        if (after_gravity)
            save_lines(G, P, Wk->prev, m.p, m.q);
        remove_pair(G, P, m.p, m.q);
        if (P->tiles)
            nm = !Wk->incremental ? list_all_moves(Wk, P, moves)
                 : !G->gravity ? moves_after(Wk, P, moves, nm, m.p, m.q)
                 : after_gravity ? moves_after_gravity(Wk, P, moves, nm, m.p, m.q)
                 : list_all_moves(Wk, P, moves); /* an unsettled start's first move: it falls whole */
    }
    return 1;
}

/* ---- setting up and freeing -------------------------------------------------------------- */

/* Room for new pairs before they are merged into the moves (more are merged in batches). A
 * debugging build may set it (to 1: a merge per pair). */
#ifndef FRESH_CAP
#define FRESH_CAP 256
#endif

static void free_work(Work *Wk)
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
    free(Wk->prev);
    free(Wk->dirty);
    free(Wk->changed);
}

/* Room for a move list: every same-type pair of tiles, at most. */
static size_t most_pairs(const Game *G)
{
    size_t pairs = 1;
    for (int t = 1; t <= G->ntypes; t++) {
        size_t m = (size_t)(G->type_off[t + 1] - G->type_off[t]);
        pairs += m * (m - 1) / 2;
    }
    return pairs;
}

/* The working memory for the game G; 0 without memory (set). */
static int work_setup(Work *Wk, const Game *G)
{
    int n = G->n, ntypes = G->ntypes, ntiles = G->ntiles, rows = G->rows, cols = G->cols;
    size_t pairs = most_pairs(G);
    Wk->G = G;
    for (int i = 0; i < 3; i++) {
        Wk->pos[i].g = malloc(sizeof(cell_t) * n);
        Wk->pos[i].count = calloc(ntypes + 2, sizeof(int));
    }
    Wk->start.g = malloc(sizeof(cell_t) * n);
    Wk->start.count = calloc(ntypes + 2, sizeof(int));
    Wk->start_moves = malloc(sizeof(Move) * pairs);
    Wk->start_nm = -1;
    Wk->start_list = malloc(sizeof(int) * (ntiles + 1));
    Wk->fresh_cap = FRESH_CAP;
    Wk->fresh = malloc(sizeof(Move) * Wk->fresh_cap);
    Wk->merged = malloc(sizeof(Move) * pairs);
    Wk->seen = malloc(sizeof(int) * 4 * (rows + cols + 4));
    Wk->seen_next = malloc(sizeof(int) * 4 * (rows + cols + 4));
    Wk->type_head = calloc(ntypes + 2, sizeof(int));
    Wk->type_stamp = calloc(ntypes + 2, sizeof(unsigned));
    Wk->stamp = 0;
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
    Wk->prev = calloc(n, sizeof(cell_t));
    Wk->dirty = calloc(n, 1);
    Wk->changed = malloc(sizeof(int) * 2 * (rows + cols + 2));
    int ok = Wk->start.g && Wk->start.count && Wk->start_moves && Wk->start_list && Wk->fresh && Wk->merged &&
             Wk->seen && Wk->seen_next && Wk->type_head && Wk->type_stamp && Wk->moves[0] && Wk->moves[1] &&
             Wk->order && Wk->rest && Wk->best && Wk->list && Wk->tiles && Wk->fill && Wk->index && Wk->reach &&
             Wk->prev && Wk->dirty && Wk->changed;
    for (int i = 0; i < 3; i++)
        ok = ok && Wk->pos[i].g && Wk->pos[i].count;
    if (!ok)
        PyErr_NoMemory();
    return ok;
}

/* Read the board and build the game and the working memory; 0 on an error (set). */
static int setup(Game *G, Work *Wk, int rows, int cols, PyObject *cells_obj, int gravity, int border)
{
    if (gravity < G_NONE || gravity > G_RIGHT) {
        PyErr_SetString(PyExc_ValueError, "gravity: expected 0 (none), 1 (down), 2 (up), 3 (left) or 4 (right)");
        return 0;
    }
    return game_read(G, rows, cols, cells_obj, gravity, border) && work_setup(Wk, G);
}

/* ---- the Python functions -------------------------------------------------------------- */

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
    free_work(&Wk);
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
    free_work(&Wk);
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
