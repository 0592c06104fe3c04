/* Reading a board from Python into the model players' game and working memory, and freeing
 * them (llkgen/analysis/_players.c is the one file that includes this). Every function is
 * static. */
#ifndef LLKGEN_PLAYERS_SETUP_H
#define LLKGEN_PLAYERS_SETUP_H
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include "_players_board.h"

/* Room for new pairs before they are merged into the moves (more are merged in batches). A
 * debugging build may set it (to 1: a merge per pair). */
#ifndef FRESH_CAP
#define FRESH_CAP 256
#endif

static void free_game(Game *G)
{
    free(G->row);
    free(G->col);
    free(G->line_off);
    free(G->line_cells);
    free(G->line_of);
    free(G->line_pos);
    free(G->seg_top);
    free(G->type_off);
    free(G->start);
}

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
    G->line_pos = calloc(n, sizeof(int));
    G->seg_top = calloc(n, sizeof(int));
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
    Wk->prev = calloc(n, sizeof(cell_t));
    Wk->dirty = calloc(n, 1);
    Wk->changed = malloc(sizeof(int) * 2 * (rows + cols + 2));
    ok = Wk->start.g && Wk->start.count && Wk->start_moves && Wk->start_list && Wk->fresh && Wk->merged && Wk->seen &&
         Wk->seen_next && Wk->type_head && Wk->type_stamp &&
         G->row && G->col && G->start && G->type_off && G->line_off && G->line_cells && G->line_of && G->line_pos && G->seg_top &&
         Wk->moves[0] &&
         Wk->moves[1] && Wk->order && Wk->rest && Wk->best && Wk->list && Wk->tiles && Wk->fill && Wk->index && Wk->reach &&
         Wk->prev && Wk->dirty && Wk->changed;
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
    for (int k = 0; k < G->nlines; k++) /* each cell's place in its line, and its run's last place */
        for (int i = len - 1, top = len - 1; i >= 0; i--) {
            int p = G->line_cells[k * len + i];
            G->line_pos[p] = i;
            G->seg_top[p] = top;
            if (G->start[p] == WALL)
                top = i - 1;
        }
    free(values);
    free(types);
    return 1;
}

#endif
