/* The padded board, shared by the C gravity search (llkgen/verifier/_gravity_search.c) and the C
 * model players (llkgen/analysis/_players.c): reading a board from Python, its line tables under
 * gravity, and gravity's compaction. The link rule is links.h, beside it.
 *
 * A board of rows x cols is padded with a one-cell ring (empty and passable with the border
 * rule, a wall without it), so a path never leaves the array and a cell's four neighbours are
 * always in it: H = rows + 2 rows of W = cols + 2 cells, cell p at row p / W, column p % W. Each
 * row's and column's empty cells fit one 64-bit mask, so rows and cols are 1 to 62; game_read
 * refuses anything else. A cell holds WALL (-1), 0 (empty) or a tile's type, renumbered
 * 1..ntypes in order of first sight (row-major): both modules need only which tiles match,
 * never the values themselves, and a type is then an index into per-type arrays. The gravity
 * search lists its moves type by type and sorts them, and in this order they come out nearer
 * sorted: numbered by value instead, it ran about 4% slower on the real gravity boards
 * (benchmarks/native_build_bench.py). type_off[t] is where type t's tiles start in a list of
 * all tiles by type (type_off[ntypes + 1] is the number of tiles).
 *
 * Gravity: every run (a column for down and up, a row for left and right, split by walls)
 * compacts its tiles towards the gravity side, keeping their order, as the referee does
 * (llkgen/game/gravity.py). A line is one column or row of the inner board, listed from the
 * gravity side outwards; depth[p] is a cell's place in its line, seg_top[p] the last place of
 * its run. Walls never move, so these tables are fixed for the game. compact_line compacts one
 * line and, when asked, carries each tile's identity with it.
 *
 * Every function is static (inline where a hot loop calls it): each module compiles its own
 * copy, and its compiler inlines them into its hot loops. */
#ifndef LLKGEN_BOARD_H
#define LLKGEN_BOARD_H
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "check.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "links.h"

#define WALL (-1)
#define MAX_SIDE 62 /* a padded row or column in one 64-bit mask */

typedef int16_t cell_t;

enum { G_NONE = 0, G_DOWN = 1, G_UP = 2, G_LEFT = 3, G_RIGHT = 4 };

typedef struct {
    int rows, cols, H, W, n; /* the board, and its padded rows, columns and cells */
    int gravity;            /* G_NONE .. G_RIGHT */
    int ntypes, ntiles;     /* types renumbered 1..ntypes; the starting tiles */
    int words;              /* 64-bit words of a set of starting tiles (a bit per tile) */
    int *row, *col;         /* per padded cell: its row and column */
    int nlines;             /* gravity's lines (0 without gravity) */
    int *line_off;          /* lines' cell lists: line_cells[line_off[k] .. line_off[k+1]) */
    int *line_cells;        /* padded indices, each line from the gravity side outwards */
    int *line_of;           /* per padded cell: its line (-1 for the ring, or without gravity) */
    int *depth;             /* per padded cell: its place in its line from the gravity side */
    int *seg_top;           /* per padded cell in a line: the last place of its run */
    int *walled;            /* per line: whether it holds a wall (so more than one run) */
    int *type_off;          /* per type: where its tiles start in a list of tiles by type */
    uint64_t ringE_row[64], ringE_col[64]; /* the ring's empty cells, by row and by column */
    uint64_t inner, wall_row[64]; /* the inner columns' bits, and each row's walls */
    cell_t *start;          /* the padded starting board */
    int start_settled;      /* under gravity: whether every run of the start is compact */
} Game;

static inline int on_ring(const Game *G, int p)
{
    int r = p / G->W, c = p % G->W;
    return r == 0 || c == 0 || r == G->H - 1 || c == G->W - 1;
}

static void game_free(Game *G)
{
    free(G->row);
    free(G->col);
    free(G->line_off);
    free(G->line_cells);
    free(G->line_of);
    free(G->depth);
    free(G->seg_top);
    free(G->walled);
    free(G->type_off);
    free(G->start);
    memset(G, 0, sizeof *G);
}

/* The reach of the tile at p (row r, column c: the caller has all three at hand) on board g
 * with masks rowE, colE (links.h): a tile with no empty neighbour reaches nothing, and its runs
 * are not measured (most tiles of a full board). */
static inline void reach_at(const Game *G, const cell_t *g, const uint64_t *rowE, const uint64_t *colE, int p,
                            int r, int c, Reach *a)
{
    int W = G->W;
    assert(p == r * W + c && 0 < r && r < G->H - 1 && 0 < c && c < W - 1 && g[p] > 0); /* a tile, inside the ring */
    a->r = r;
    a->c = c;
    a->open = g[p - 1] == 0 || g[p + 1] == 0 || g[p - W] == 0 || g[p + W] == 0;
    if (a->open) {
        reach(rowE[r], c, &a->hl, &a->hr);
        reach(colE[c], r, &a->vu, &a->vd);
    }
}

/* The empty cells of board g, as masks by row and by column (the ring's never change). */
static inline void board_masks(const Game *G, const cell_t *g, uint64_t *rowE, uint64_t *colE)
{
    memcpy(rowE, G->ringE_row, sizeof(uint64_t) * G->H);
    memcpy(colE, G->ringE_col, sizeof(uint64_t) * G->W);
    for (int r = 1; r < G->H - 1; r++)
        for (int c = 1, p = r * G->W + 1; c < G->W - 1; c++, p++)
            if (g[p] == 0) {
                rowE[r] |= 1ULL << c;
                colE[c] |= 1ULL << r;
            }
}

/* Whether line k of g is compact: no tile beyond an empty cell in its run. */
static int line_compact(const Game *G, int k, const cell_t *g)
{
    int gap = 0;
    for (int i = G->line_off[k]; i < G->line_off[k + 1]; i++) {
        cell_t v = g[G->line_cells[i]];
        if (v == WALL)
            gap = 0;
        else if (v == 0)
            gap = 1;
        else if (gap)
            return 0;
    }
    return 1;
}

#ifndef NDEBUG
/* For the asserts: line k's tiles (and their identities, with id) in order, with each wall as
 * WALL; their number. */
static int line_sequence(const Game *G, int k, const cell_t *g, const int16_t *id, int *out)
{
    int m = 0;
    for (int i = G->line_off[k]; i < G->line_off[k + 1]; i++) {
        int p = G->line_cells[i];
        if (g[p] == WALL)
            out[m++] = WALL;
        else if (g[p] > 0)
            out[m++] = id ? (int)g[p] * 65536 + id[p] : g[p];
    }
    return m;
}
#endif

/* Compact line k of board g towards the gravity side, keeping its tiles' order and its walls in
 * place; with id, carry each tile's identity along (id[p] is -1 on a cell with no tile). */
static void compact_line(const Game *G, int k, cell_t *g, int16_t *id)
{
    assert(0 <= k && k < G->nlines);
    const int *line = G->line_cells + G->line_off[k];
    int len = G->line_off[k + 1] - G->line_off[k], dest = 0;
#ifndef NDEBUG
    int before[MAX_SIDE], after[MAX_SIDE];
    int m = line_sequence(G, k, g, id, before);
#endif
    for (int i = 0; i < len; i++) {
        int p = line[i];
        cell_t v = g[p];
        if (v == WALL) {
            dest = i + 1;
        } else if (v > 0) {
            if (i != dest) {
                int j = line[dest];
                g[j] = v;
                g[p] = 0;
                if (id) {
                    id[j] = id[p];
                    id[p] = -1;
                }
            }
            dest++;
        }
    }
#ifndef NDEBUG
    assert(line_sequence(G, k, g, id, after) == m && memcmp(before, after, sizeof(int) * m) == 0);
    assert(line_compact(G, k, g));
#endif
}

#ifndef NDEBUG
/* For the asserts: every line of g is compact (the board is settled). */
static void assert_settled(const Game *G, const cell_t *g)
{
    for (int k = 0; k < G->nlines; k++)
        assert(line_compact(G, k, g));
}
#else
#define assert_settled(G, g) ((void)0)
#endif

/* ---- reading a board from Python ------------------------------------------------------- */

static int cmp_value(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* The cells (row-major, rows * cols of them) as values: WALL, 0 or a type >= 1. NULL on an
 * error (set). */
static long long *read_cells(int rows, int cols, PyObject *cells_obj)
{
    /* a tuple of the cells: a list could be changed under us by an element's __index__ */
    PyObject *seq = PySequence_Tuple(cells_obj);
    if (seq == NULL)
        return NULL;
    int area = rows * cols;
    if (PyTuple_GET_SIZE(seq) != (Py_ssize_t)area) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "cells: expected rows * cols values");
        return NULL;
    }
    long long *values = malloc(sizeof(long long) * area);
    if (values == NULL) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return NULL;
    }
    for (int i = 0; i < area; i++) {
        long long v = PyLong_AsLongLong(PyTuple_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred())
            break;
        if (v < WALL) {
            PyErr_SetString(PyExc_ValueError, "cells: expected -1 (wall), 0 (empty) or a tile type >= 1");
            break;
        }
        values[i] = v;
    }
    Py_DECREF(seq);
    if (PyErr_Occurred()) {
        free(values);
        return NULL;
    }
    return values;
}

/* The padded start from the values: types renumbered 1..ntypes in order of first sight, the ring
 * empty (border) or walls, each type's place in a list by type, and the masks of the ring and
 * the walls. 0 without memory. */
static int place_cells(Game *G, const long long *values, int border)
{
    int area = G->rows * G->cols, ntiles = 0, ntypes = 0;
    long long *types = malloc(sizeof(long long) * (area + 1)); /* the distinct values, sorted */
    int *number = calloc(area + 1, sizeof(int));               /* ... and each one's type, once seen */
    if (types == NULL || number == NULL) {
        free(types);
        free(number);
        return 0;
    }
    for (int i = 0; i < area; i++)
        if (values[i] > 0)
            types[ntiles++] = values[i];
    qsort(types, ntiles, sizeof(long long), cmp_value);
    for (int i = 0; i < ntiles; i++)
        if (ntypes == 0 || types[ntypes - 1] != types[i])
            types[ntypes++] = types[i];
    G->ntypes = ntypes;
    G->ntiles = ntiles;
    G->words = ntiles / 64 + 1;
    G->type_off = calloc(ntypes + 2, sizeof(int));
    if (G->type_off == NULL) {
        free(types);
        free(number);
        return 0;
    }
    for (int p = 0; p < G->n; p++) {
        int r = p / G->W, c = p % G->W;
        G->row[p] = r;
        G->col[p] = c;
        G->start[p] = on_ring(G, p) && !border ? WALL : 0;
        if (on_ring(G, p) && border) {
            G->ringE_row[r] |= 1ULL << c;
            G->ringE_col[c] |= 1ULL << r;
        }
    }
    for (int i = 0, seen = 0; i < area; i++) {
        int r = i / G->cols + 1, c = i % G->cols + 1, p = r * G->W + c;
        long long v = values[i];
        if (v > 0) {
            int lo = 0, hi = ntypes - 1; /* binary search: the value's place among the types */
            while (lo < hi) {
                int mid = (lo + hi) / 2;
                if (types[mid] < v)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            assert(types[lo] == v);
            if (number[lo] == 0)
                number[lo] = ++seen;
            G->start[p] = (cell_t)number[lo];
            G->type_off[number[lo] + 1]++;
        } else {
            G->start[p] = (cell_t)v;
            if (v == WALL)
                G->wall_row[r] |= 1ULL << c;
        }
    }
    for (int t = 2; t <= ntypes + 1; t++) /* type t's tiles from type_off[t]: the counts before it */
        G->type_off[t] += G->type_off[t - 1];
    G->inner = span(1, G->cols);
    free(types);
    free(number);
    return 1;
}

/* Gravity's lines (the head comment), the runs within them and whether the start is settled. */
static void build_lines(Game *G)
{
    int rows = G->rows, cols = G->cols, gravity = G->gravity;
    int len = gravity == G_DOWN || gravity == G_UP ? rows : cols;
    for (int p = 0; p < G->n; p++)
        G->line_of[p] = -1;
    G->start_settled = 1;
    for (int k = 0; k < G->nlines; k++) {
        G->line_off[k] = k * len;
        for (int i = 0; i < len; i++) {
            int r = gravity == G_DOWN ? rows - 1 - i : gravity == G_UP ? i : k;
            int c = gravity == G_LEFT ? i : gravity == G_RIGHT ? cols - 1 - i : k;
            int p = (r + 1) * G->W + c + 1;
            G->line_cells[k * len + i] = p;
            G->line_of[p] = k;
            G->depth[p] = i;
            if (G->start[p] == WALL)
                G->walled[k] = 1;
        }
    }
    G->line_off[G->nlines] = G->nlines * len;
    for (int k = 0; k < G->nlines; k++) {
        G->start_settled = G->start_settled && line_compact(G, k, G->start);
        for (int i = len - 1, top = len - 1; i >= 0; i--) { /* each cell's run's last place */
            int p = G->line_cells[k * len + i];
            G->seg_top[p] = top;
            if (G->start[p] == WALL)
                top = i - 1;
        }
    }
}

#ifndef NDEBUG
/* For the asserts: the invariants of a game just read (the head comment). */
static void game_check(const Game *G)
{
    assert(1 <= G->rows && G->rows <= MAX_SIDE && 1 <= G->cols && G->cols <= MAX_SIDE);
    assert(G->H == G->rows + 2 && G->W == G->cols + 2 && G->n == G->H * G->W);
    assert(G->ntiles < 32768 && G->words * 64 > G->ntiles); /* 16-bit identities, a bit each */
    assert(G->type_off[1] == 0 && G->type_off[G->ntypes + 1] == G->ntiles);
    for (int t = 1; t <= G->ntypes; t++)
        assert(G->type_off[t + 1] > G->type_off[t]); /* every type has a tile */
    for (int p = 0; p < G->n; p++) {
        assert(G->start[p] >= WALL && G->start[p] <= G->ntypes);
        assert(!on_ring(G, p) || (G->start[p] <= 0 && G->line_of[p] == -1)); /* the padding */
        assert(G->line_of[p] < G->nlines);
        assert(G->line_of[p] < 0 || G->line_cells[G->line_off[G->line_of[p]] + G->depth[p]] == p);
    }
    for (int k = 0; k < G->nlines; k++)
        assert(G->line_off[k] < G->line_off[k + 1]);
    assert(G->nlines == 0 || G->line_off[G->nlines] == G->rows * G->cols); /* every inner cell once */
}
#else
#define game_check(G) ((void)0)
#endif

/* Read a board from Python (rows, cols, the cells row-major; gravity as G_NONE .. G_RIGHT,
 * checked by the caller; border) into G, zeroed by the caller: 0 on an error (set), after which
 * game_free(G) is still due. */
static int game_read(Game *G, int rows, int cols, PyObject *cells_obj, int gravity, int border)
{
    if (rows < 1 || cols < 1 || rows > MAX_SIDE || cols > MAX_SIDE) {
        PyErr_SetString(PyExc_ValueError, "board: expected 1 to 62 rows and columns");
        return 0;
    }
    long long *values = read_cells(rows, cols, cells_obj);
    if (values == NULL)
        return 0;
    int vertical = gravity == G_DOWN || gravity == G_UP;
    G->rows = rows;
    G->cols = cols;
    G->H = rows + 2;
    G->W = cols + 2;
    G->n = G->H * G->W;
    G->gravity = gravity;
    G->nlines = gravity == G_NONE ? 0 : vertical ? cols : rows;
    G->row = malloc(sizeof(int) * G->n);
    G->col = malloc(sizeof(int) * G->n);
    G->start = calloc(G->n, sizeof(cell_t));
    G->line_off = malloc(sizeof(int) * (G->nlines + 1));
    G->line_cells = malloc(sizeof(int) * (rows * cols + 1));
    G->line_of = malloc(sizeof(int) * G->n);
    G->depth = calloc(G->n, sizeof(int));
    G->seg_top = calloc(G->n, sizeof(int));
    G->walled = calloc(G->nlines + 1, sizeof(int));
    int ok = G->row && G->col && G->start && G->line_off && G->line_cells && G->line_of && G->depth &&
             G->seg_top && G->walled && place_cells(G, values, border);
    free(values);
    if (!ok) {
        PyErr_NoMemory();
        return 0;
    }
    build_lines(G);
    game_check(G);
    return 1;
}

#endif
