/* The model players' board (llkgen/analysis/_players.c is the one file that includes this):
 * a position padded with a one-cell ring, each row's and column's empty cells as one 64-bit
 * mask, gravity's lines, and the moves of a position listed in move order (every linkable
 * same-type pair (p, q), p < q, in padded row-major order: Playout.moves()' order). Every
 * function is static. */
#ifndef LLKGEN_PLAYERS_BOARD_H
#define LLKGEN_PLAYERS_BOARD_H
#include <stdint.h>
#include <string.h>
#include "../verifier/_links.h"

#define WALL (-1)

typedef int16_t cell_t;

typedef struct {
    int rows, cols, H, W, n;
    int gravity;            /* 0 none, 1 down, 2 up, 3 left, 4 right */
    int ntypes, ntiles;
    int *row, *col;         /* per padded cell */
    int nlines, *line_off, *line_cells; /* gravity's lines, each from the gravity side outwards */
    int *line_of;           /* per padded cell: its gravity line (-1 for the ring, or without gravity) */
    int *line_pos, *seg_top; /* per padded cell in a line: its place from the gravity side, and the
                                last place of its run (before the next wall outwards) */
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
            reach_at(G, P, r, c, &Wk->reach[p]);
        }
    Wk->ntiles = n;
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

/* Under gravity, on a settled board: whether removing the tile at x can change cell c. Only the
 * cells from x outwards in x's run, up to the next wall, can: each takes the tile beyond it, and
 * the run's top tile leaves its cell empty. No cell fills that was empty, so every path open
 * before the removal stays open. */
static inline int shifts(const Game *G, int x, int c)
{
    return G->line_of[c] == G->line_of[x] && G->line_pos[c] >= G->line_pos[x] && G->line_pos[c] <= G->seg_top[x];
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

#endif
