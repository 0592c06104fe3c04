/* The model players in C: the same five players as llkgen/analysis/players.py, making the same
 * choices with the same random numbers, so a playthrough clears the same boards with the same
 * moves whichever of the two runs it. llkgen/analysis/native_players.py is the only caller;
 * tests/test_native_players.py holds the two to the same moves, model by model.
 *
 * This file holds the random numbers, the models and the Python functions. Three headers,
 * included only here, hold the rest: _players_board.h the board and the moves of a position,
 * _players_moves.h the moves after a move without gravity, _players_setup.h reading a board.
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
#include <stdlib.h>
#include <string.h>
#include "_players_board.h"
#include "_players_moves.h"
#include "_players_setup.h"

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
    masks(G, S);
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
    free_game(&G);
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
    free_game(&G);
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
