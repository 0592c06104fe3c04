/* The model players' moves after a move: without gravity (moves_after) and under gravity on a
 * settled board (moves_after_gravity, at the end, which argues its own case). llkgen/analysis/
 * _players.c is the one file that includes this, after _players_board.h; every function is
 * static.
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
#ifndef LLKGEN_PLAYERS_MOVES_H
#define LLKGEN_PLAYERS_MOVES_H
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include "_players_board.h"

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
        reach_at(G, P, G->row[e], G->col[e], &a);
        /* the tiles of e's type: without gravity the start's (tiles never move; those gone are
         * skipped), under gravity this position's survey (moves_after_gravity takes it first) */
        const int *ts = G->gravity ? Wk->list + G->type_off[t] : Wk->start_list + G->type_off[t];
        int nt = G->gravity ? Wk->fill[t] : G->type_off[t + 1] - G->type_off[t];
        for (int j = 0; j < nt; j++) {
            int f = ts[j];
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

#endif
