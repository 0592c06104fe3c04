/* The move search under gravity, in C: the same complete depth-first search as the Python
 * move search (llkgen/verifier/movesearch.py), on a representation the interpreter cannot
 * offer. llkgen/verifier/native.py is the only caller and explains when it runs; this file
 * explains how.
 *
 * The board is padded with a one-cell ring (empty and passable with the border rule, a wall
 * without it), so a path never leaves the array. Each row and column keeps a 64-bit mask of
 * its empty cells, so padded boards up to 64 x 64 (62 x 62 playable) are accepted; the
 * caller checks. The board, its gravity lines and their compaction are ../_native/board.h,
 * the link rule ../_native/links.h: both shared with the model players (analysis/_players.c).
 * A build with LLKGEN_CHECK asserts the invariants argued here (../_native/check.h).
 *
 * The link rule (at most two turns, every cell passed empty) is decided from each tile's
 * straight-line reach, found with a count of trailing bits: two tiles link when they see
 * each other along a row or column, or when some column both reach along their rows is empty
 * between them (horizontal, vertical, horizontal), or some row both reach along their
 * columns is empty between them (vertical, horizontal, vertical). A one-turn path is the
 * three-segment shape with an empty end segment, so it is one of those. A tile with no empty
 * neighbour can only link to a tile next to it (a path's first cell is an empty neighbour),
 * which settles most pairs of a full board without measuring a run.
 *
 * Gravity: every run (a column for down and up, a row for left and right, split by walls)
 * compacts its tiles towards the gravity side, keeping their order. A settled board (every
 * run compact) changes only in the runs of the two tiles removed, so only those are
 * compacted; an unsettled start is compacted whole after its first move, as the referee
 * does.
 *
 * Positions are keyed by the set of starting tiles removed (a bit per tile, carried through
 * every slide): on a settled board that set fixes the board, whatever order the removals came
 * in (movesearch.py argues it). A position whose every move was tried without a clearing is
 * dead, and its set goes into an open-addressing table; a move whose set is there is skipped
 * before it is played. The table is exact (whole keys are compared, never a hash alone) and
 * only ever holds positions the search finished, so it can never prune a live one. When it
 * reaches its memory cap it stops growing: later dead positions are not recorded, which
 * costs time, never a verdict.
 * Most probes of the table miss the processor's cache (the table is large, its keys
 * scattered), so a level hashes the keys its moves lead to as soon as its move list is made
 * and asks for their slots ahead of the probes (hash_moves): a tenth to a seventh less CPU at
 * the same nodes (docs/benchmarks.md, "The C modules against a git ref").
 *
 * Safe clearings are played without branching, as in the Python search: a type all of whose
 * tiles lie at the far ends of their runs (every tile beyond one of them, away from the gravity
 * side, is of its type) is cleared by its own moves when a greedy pass can, and any clearing of
 * the board still works with those moves first (movesearch.py, "clearing a type from the top",
 * argues it). A node is keyed both as the move left it and after these clearings; the two
 * stand or fall together.
 *
 * Move order, raced as in the Python search: "far" (the tiles farthest from the gravity side
 * first: their removal moves the fewest tiles) alone for a dive of half the tiles plus 8 nodes,
 * then far, "near" (a type's last two tiles first, then the nearest the gravity side) and board
 * order take turns of 64 nodes, with a fourth turn for restarts (far with ties broken by a
 * seeded hash, for Luby allowances of dives). Every line is a complete search by itself and
 * they share the table, so whichever finishes first decides.
 *
 * Budget: every move tried counts as a node, whether played or skipped by the table, as in
 * the Python search. The clock is read every 1024 nodes, and Python's signal handlers run
 * every 65536, so Ctrl-C stops a long search.
 *
 * search() parses its arguments and reads the board (parse), sets up the search (run_setup),
 * races the lines (run_race) and frees what it set up (run_free), each a function of its own.
 *
 * Returns (status, nodes, moves, recorded): status "solvable" (moves: the removal order, each
 * pair as ((row, col), (row, col)) on the board at that moment), "unsolvable" (the search
 * finished: no order clears the board), or "nodes" / "seconds" (the budget that ran out);
 * recorded is the number of dead positions in the table at the end.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _MSC_VER
#include <windows.h>
#endif
#include "../_native/board.h"

typedef struct {
    uint64_t *keys;     /* cap * words; an all-zero key marks an empty slot */
    size_t cap, count, max_bytes;
    int words, full;
} Table;

static uint64_t hash_key(const uint64_t *k, int words)
{
    uint64_t h = 0x9E3779B97F4A7C15ULL;
    for (int i = 0; i < words; i++) {
        h ^= k[i];
        h *= 0xFF51AFD7ED558CCDULL;
        h ^= h >> 32;
    }
    return h;
}

static int table_has_h(const Table *t, const uint64_t *k, uint64_t h)
{
    if (t->count == 0)
        return 0;
    assert(t->count * 10 <= t->cap * 7 && (t->cap & (t->cap - 1)) == 0); /* a free slot ends every probe */
    assert(h == hash_key(k, t->words));
    size_t mask = t->cap - 1, i = h & mask;
    for (;;) {
        const uint64_t *s = t->keys + i * t->words;
        int empty = 1, same = 1;
        for (int w = 0; w < t->words; w++) {
            if (s[w])
                empty = 0;
            if (s[w] != k[w])
                same = 0;
        }
        if (same)
            return !empty;
        if (empty)
            return 0;
        i = (i + 1) & mask;
    }
}

static int table_has(const Table *t, const uint64_t *k)
{
    return table_has_h(t, k, hash_key(k, t->words));
}

static void table_put(uint64_t *keys, size_t cap, int words, const uint64_t *k)
{
    size_t mask = cap - 1, i = hash_key(k, words) & mask;
    for (;;) {
        uint64_t *s = keys + i * words;
        int empty = 1, same = 1;
        for (int w = 0; w < words; w++) {
            if (s[w])
                empty = 0;
            if (s[w] != k[w])
                same = 0;
        }
        if (same)
            return;
        if (empty) {
            memcpy(s, k, sizeof(uint64_t) * words);
            return;
        }
        i = (i + 1) & mask;
    }
}

/* Record a dead position (a nonzero key). Grows the table at 70% load while the cap allows. */
static void table_add(Table *t, const uint64_t *k)
{
#ifndef NDEBUG
    int nonzero = 0;
    for (int w = 0; w < t->words; w++)
        nonzero |= k[w] != 0;
    assert(nonzero); /* an all-zero key marks an empty slot */
#endif
    if ((t->count + 1) * 10 > t->cap * 7) {
        size_t cap = t->cap * 2;
        uint64_t *keys = NULL;
        if (cap * t->words * sizeof(uint64_t) <= t->max_bytes)
            keys = calloc(cap * t->words, sizeof(uint64_t));
        if (keys == NULL) {
            t->full = 1;
            return;
        }
        for (size_t i = 0; i < t->cap; i++) {
            const uint64_t *s = t->keys + i * t->words;
            for (int w = 0; w < t->words; w++)
                if (s[w]) {
                    table_put(keys, cap, t->words, s);
                    break;
                }
        }
        free(t->keys);
        t->keys = keys;
        t->cap = cap;
    }
    if (!table_has(t, k)) {
        table_put(t->keys, t->cap, t->words, k);
        t->count++;
    }
}

static void reach_of(const Game *G, const cell_t *g, const uint64_t *rowE, const uint64_t *colE, int p, Reach *a)
{
    reach_at(G, g, rowE, colE, p, G->row[p], G->col[p], a);
}

/* ---- the search: lines of play taking turns over one table ------------------------------- */

typedef struct {
    int p, q;
    int64_t key;
    uint64_t hash;      /* of the removed set the move leads to (filled once the list is sorted) */
} Move;

enum { ORDER_FAR, ORDER_NEAR, ORDER_BOARD };
enum { STEP_STOP = -1, STEP_DEAD = 0, STEP_FOUND = 1, STEP_GOING = 2 };

/* One depth-first search in one move order, run a node at a time so that several take turns.
 * Level k holds the board k moves deep: as the move left it, then after the safe clearings. */
typedef struct {
    int order;
    uint64_t seed;      /* nonzero: ties broken by a hash of the seed and the move */
    int started, level; /* level: the top frame, -1 once the line is exhausted */
    cell_t *g;          /* (maxdepth + 1) boards */
    int16_t *id;        /* their tile identities */
    uint64_t *key0;     /* removed sets: as the move left the board */
    uint64_t *key1;     /* ... and after the safe clearings */
    int *settled, *off, *cnt, *idx, *coff, *ccnt, *played_p, *played_q;
    Move *moves;        /* the move lists of the levels, one after the other */
    size_t moves_cap;
    int *cmoves;        /* the safe clearings of the levels, as cell pairs, one after the other */
} Line;

typedef struct {
    const Game *G;
    Table *T;
    const cell_t *root;
    const int16_t *root_id;
    int root_settled, maxdepth;
    long long nodes, max_nodes;
    double deadline;
    const char *stop;   /* the budget that ran out, or NULL */
    int failed;         /* a Python error is set (no memory, a signal) */
    int *scratch, *fill, *far, *order_t;
    int tiles;          /* the tiles of the board last surveyed */
    Reach *reaches;
    cell_t *save_g;
    int16_t *save_id;
    uint64_t *save_key;
    uint64_t *child_key; /* hash_moves' scratch key */
    uint64_t rowE[64], colE[64];
} Search;

static double now(void)
{
#ifdef _MSC_VER
    LARGE_INTEGER f, c;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&c);
    return (double)c.QuadPart / (double)f.QuadPart;
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
#endif
}

/* Count a node; 0 when a budget has run out or a signal handler raised. */
static int tick(Search *S)
{
    /* the check comes before the count: a budget of N nodes that runs out reports N */
    if (S->max_nodes >= 0 && S->nodes >= S->max_nodes) {
        S->stop = "nodes";
        return 0;
    }
    S->nodes++;
    assert(S->max_nodes < 0 || S->nodes <= S->max_nodes);
    if ((S->nodes & 1023) == 0 && S->deadline >= 0 && now() > S->deadline) {
        S->stop = "seconds";
        return 0;
    }
    if ((S->nodes & 65535) == 0 && PyErr_CheckSignals() < 0) {
        S->failed = 1;
        return 0;
    }
    return 1;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDULL;
    x ^= x >> 33;
    x *= 0xC4CEB9FE1A85EC53ULL;
    x ^= x >> 33;
    return x;
}

static void line_free(Line *L)
{
    free(L->g);
    free(L->id);
    free(L->key0);
    free(L->key1);
    free(L->settled);
    free(L->off);
    free(L->cnt);
    free(L->idx);
    free(L->coff);
    free(L->ccnt);
    free(L->played_p);
    free(L->played_q);
    free(L->moves);
    free(L->cmoves);
}

static int line_init(const Search *S, Line *L, int order, uint64_t seed)
{
    const Game *G = S->G;
    size_t d = (size_t)S->maxdepth + 1;
    memset(L, 0, sizeof *L);
    L->order = order;
    L->seed = seed;
    L->level = -1;
    L->g = malloc(sizeof(cell_t) * G->n * d);
    L->id = malloc(sizeof(int16_t) * G->n * d);
    L->key0 = calloc(G->words * d, sizeof(uint64_t));
    L->key1 = calloc(G->words * d, sizeof(uint64_t));
    L->settled = calloc(d, sizeof(int));
    L->off = calloc(d, sizeof(int));
    L->cnt = calloc(d, sizeof(int));
    L->idx = calloc(d, sizeof(int));
    L->coff = calloc(d, sizeof(int));
    L->ccnt = calloc(d, sizeof(int));
    L->played_p = calloc(d, sizeof(int));
    L->played_q = calloc(d, sizeof(int));
    L->moves_cap = 4096;
    L->moves = malloc(sizeof(Move) * L->moves_cap);
    L->cmoves = malloc(sizeof(int) * (G->ntiles + 2));
    return L->g && L->id && L->key0 && L->key1 && L->settled && L->off && L->cnt && L->idx && L->coff &&
           L->ccnt && L->played_p && L->played_q && L->moves && L->cmoves;
}

static int any_set(const uint64_t *k, int words)
{
    for (int w = 0; w < words; w++)
        if (k[w])
            return 1;
    return 0;
}

/* Remove p and q from a settled board (or, unsettled, compact it whole), carrying identities
 * and adding the two tiles to the removed set `key` (a no-op when they are in it already). */
static void play(const Game *G, cell_t *g, int16_t *id, uint64_t *key, int p, int q, int settled)
{
    assert(p != q && g[p] > 0 && g[p] == g[q]); /* two tiles of one type */
    assert(0 <= id[p] && id[p] < G->ntiles && 0 <= id[q] && id[q] < G->ntiles);
    key[id[p] >> 6] |= 1ULL << (id[p] & 63);
    key[id[q] >> 6] |= 1ULL << (id[q] & 63);
    g[p] = g[q] = 0;
    id[p] = id[q] = -1;
    if (settled) {
        compact_line(G, G->line_of[p], g, id);
        if (G->line_of[q] != G->line_of[p])
            compact_line(G, G->line_of[q], g, id);
    } else {
        for (int k = 0; k < G->nlines; k++)
            compact_line(G, k, g, id);
    }
    assert_settled(G, g); /* after every move: only p's and q's lines changed */
}

/* Take stock of a board: its tiles by type, in board order (scratch, from each type's offset,
 * fill counts), its empty cells (rowE, colE) and how many tiles it has (tiles). */
static void survey(Search *S, const cell_t *g)
{
    const Game *G = S->G;
    int tiles = 0, W = G->W;
    memset(S->fill, 0, sizeof(int) * (G->ntypes + 1));
    memcpy(S->rowE, G->ringE_row, sizeof(uint64_t) * G->H); /* the ring never changes */
    memcpy(S->colE, G->ringE_col, sizeof(uint64_t) * G->W);
    for (int r = 1; r < G->H - 1; r++)
        for (int c = 1, p = r * W + 1; c < W - 1; c++, p++) {
            int t = g[p];
            if (t > 0) {
                S->scratch[G->type_off[t] + S->fill[t]++] = p;
                tiles++;
            } else if (t == 0) {
                S->rowE[r] |= 1ULL << c;
                S->colE[c] |= 1ULL << r;
            }
        }
    S->tiles = tiles;
#ifndef NDEBUG
    for (int t = 1; t <= G->ntypes; t++) /* each type's list within its place, and even */
        assert(S->fill[t] <= G->type_off[t + 1] - G->type_off[t] &&
               S->fill[t] % 2 == (G->type_off[t + 1] - G->type_off[t]) % 2);
#endif
}

/* The first linkable pair of type t's tiles in board order (the survey must be current), as
 * indices into its list; 0 if none. */
static int first_link(Search *S, const cell_t *g, int t, int *i_out, int *j_out)
{
    const Game *G = S->G;
    int *ps = S->scratch + G->type_off[t];
    Reach *rs = S->reaches + G->type_off[t];
    int m = S->fill[t];
    for (int i = 0; i < m; i++)
        reach_of(G, g, S->rowE, S->colE, ps[i], &rs[i]);
    for (int i = 0; i < m; i++)
        for (int j = i + 1; j < m; j++)
            if (linked(S->rowE, S->colE, &rs[i], &rs[j])) {
                *i_out = i;
                *j_out = j;
                return 1;
            }
    return 0;
}

/* Clear type t by its own moves, greedily (the first linkable pair in board order each time),
 * when every tile of it lies at the far end of its run (the caller checked). Returns 1 and
 * appends the moves to the level's clearings, or 0 with the board as it was; either way the
 * survey is current on return. */
static int clear_type(Search *S, Line *L, int lv, int t)
{
    const Game *G = S->G;
    int n = G->n, words = G->words, i, j;
    cell_t *g = L->g + (size_t)lv * n;
    int16_t *id = L->id + (size_t)lv * n;
    uint64_t *key = L->key1 + (size_t)lv * words;
    int *cm = L->cmoves + 2 * (L->coff[lv] + L->ccnt[lv]);
    int played = 0;
    if (!first_link(S, g, t, &i, &j))
        return 0; /* the common case: nothing changed */
    memcpy(S->save_g, g, sizeof(cell_t) * n);
    memcpy(S->save_id, id, sizeof(int16_t) * n);
    memcpy(S->save_key, key, sizeof(uint64_t) * words);
    for (;;) {
        const int *ps = S->scratch + G->type_off[t];
        int a = ps[i], b = ps[j];
        assert(0 <= i && i < j && j < S->fill[t]);
        assert(2 * (L->coff[lv] + L->ccnt[lv] + played + 1) <= G->ntiles + 2); /* room in cmoves */
        cm[2 * played] = a;
        cm[2 * played + 1] = b;
        played++;
        play(G, g, id, key, a, b, 1);
        survey(S, g);
        if (S->fill[t] == 0)
            break;
        if (!first_link(S, g, t, &i, &j)) {
            memcpy(g, S->save_g, sizeof(cell_t) * n);
            memcpy(id, S->save_id, sizeof(int16_t) * n);
            memcpy(key, S->save_key, sizeof(uint64_t) * words);
            survey(S, g);
            return 0;
        }
    }
    L->ccnt[lv] += played;
    return 1;
}

/* The safe clearings (the source's head comment): every type all of whose tiles lie at the far
 * ends of their runs, cleared by its own moves when it can be, until none is left. A tile
 * qualifies when every tile beyond it in its run is of its type. The survey of the board must
 * be current, and is on return. */
static void closure(Search *S, Line *L, int lv)
{
    const Game *G = S->G;
    int ntypes = G->ntypes;
    cell_t *g = L->g + (size_t)lv * G->n;
    memcpy(L->key1 + (size_t)lv * G->words, L->key0 + (size_t)lv * G->words, sizeof(uint64_t) * G->words);
    L->coff[lv] = lv ? L->coff[lv - 1] + L->ccnt[lv - 1] : 0;
    L->ccnt[lv] = 0;
    if (!L->settled[lv])
        return;
    for (int progress = 1; progress;) {
        progress = 0;
        /* count each type's tiles in the far-end blocks of their runs: it qualifies when all
         * of them are */
        int *far = S->far;
        memset(far, 0, sizeof(int) * (ntypes + 1));
        for (int k = 0; k < G->nlines; k++) {
            const int *line = G->line_cells + G->line_off[k];
            int top = 0;
            for (int i = G->line_off[k + 1] - G->line_off[k] - 1; i >= 0; i--) {
                int t = g[line[i]];
                if (t <= 0) {
                    top = 0;
                } else if (top == 0 || top == t) {
                    top = t;
                    far[t]++;
                } else {
                    top = -1;
                    if (!G->walled[k])
                        break; /* one run: the rest of the line lies below this block */
                }
            }
        }
        /* the qualifying types in the order of their first tile (insertion sort: few) */
        int m = 0;
        for (int t = 1; t <= ntypes; t++) {
            if (S->fill[t] == 0 || far[t] != S->fill[t])
                continue;
            int first = S->scratch[G->type_off[t]], k = m++;
            while (k > 0 && S->scratch[G->type_off[S->order_t[k - 1]]] > first) {
                S->order_t[k] = S->order_t[k - 1];
                k--;
            }
            S->order_t[k] = t;
        }
        for (int i = 0; i < m; i++)
            if (clear_type(S, L, lv, S->order_t[i]))
                progress = 1;
    }
}

/* List the moves of the board at level lv of line L, in the line's order, from the current
 * survey. Returns the number, or -1 without memory. */
static int list_moves(Search *S, Line *L, int lv)
{
    const Game *G = S->G;
    const cell_t *g = L->g + (size_t)lv * G->n;
    int ntypes = G->ntypes;
    int base = lv ? L->off[lv - 1] + L->cnt[lv - 1] : 0;
    assert(0 <= lv && lv <= S->maxdepth);
    L->off[lv] = base;
    L->cnt[lv] = 0;
    L->idx[lv] = 0;
    size_t pairs = 0; /* at most every same-type pair: the room the list may take */
    for (int t = 1; t <= ntypes; t++)
        pairs += (size_t)S->fill[t] * (size_t)(S->fill[t] - 1) / 2;
    size_t need = (size_t)base + pairs + 1;
    if (need > L->moves_cap) {
        size_t cap = L->moves_cap * 2 > need ? L->moves_cap * 2 : need;
        Move *mv = realloc(L->moves, cap * sizeof(Move));
        if (mv == NULL)
            return -1;
        L->moves = mv;
        L->moves_cap = cap;
    }
    Move *out = L->moves + base;
    int k = 0;
    for (int t = 1; t <= ntypes; t++) {
        int *ps = S->scratch + G->type_off[t];
        Reach *rs = S->reaches + G->type_off[t];
        int m = S->fill[t];
        for (int i = 0; i < m; i++)
            reach_of(G, g, S->rowE, S->colE, ps[i], &rs[i]);
        for (int i = 0; i < m; i++)
            for (int j = i + 1; j < m; j++)
                if (linked(S->rowE, S->colE, &rs[i], &rs[j])) {
                    int p = ps[i], q = ps[j], dp = G->depth[p], dq = G->depth[q];
                    int64_t first;
                    if (L->order == ORDER_FAR)
                        first = -(dp + dq);
                    else if (L->order == ORDER_NEAR)
                        first = (m != 2) * 65536 + dp + dq;
                    else
                        first = 0;
                    int64_t tie = L->seed ? (int64_t)(mix(L->seed * 0x100000001B3ULL ^ ((uint64_t)p << 20 | (uint64_t)q))
                                                      & ((1ULL << 40) - 1))
                                          : (int64_t)p * 4096 + q;
                    out[k].p = p;
                    out[k].q = q;
                    out[k].key = (first + (1 << 20)) * ((int64_t)1 << 40) + tie;
                    k++;
                }
    }
    for (int i = 1; i < k; i++) { /* insertion sort: a few to a few dozen moves */
        Move m = out[i];
        int j = i;
        while (j > 0 && out[j - 1].key > m.key) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = m;
    }
    assert((size_t)k <= pairs);
    for (int i = 1; i < k; i++)
        assert(out[i - 1].key <= out[i].key);
    L->cnt[lv] = k;
    return k;
}

/* Hash the removed set each move of level lv leads to, and ask for its slot in the table ahead
 * of the probe (the head comment says why). Called once the safe clearings have set key1. A
 * slot asked for before the table grows is merely not used: the hash stays right. */
static void hash_moves(Search *S, Line *L, int lv)
{
    const Game *G = S->G;
    int words = G->words;
    const int16_t *ids = L->id + (size_t)lv * G->n;
    const uint64_t *base = L->key1 + (size_t)lv * words;
    uint64_t *child = S->child_key;
    size_t mask = S->T->cap - 1;
    Move *out = L->moves + L->off[lv];
    for (int i = 0; i < L->cnt[lv]; i++) {
        memcpy(child, base, sizeof(uint64_t) * words);
        child[ids[out[i].p] >> 6] |= 1ULL << (ids[out[i].p] & 63);
        child[ids[out[i].q] >> 6] |= 1ULL << (ids[out[i].q] & 63);
        out[i].hash = hash_key(child, words);
#if defined(__GNUC__) || defined(__clang__)
        __builtin_prefetch(S->T->keys + (out[i].hash & mask) * words);
#endif
    }
}

/* Enter the board at level lv (set, with its key0): the safe clearings, then its moves. */
static int enter(Search *S, Line *L, int lv)
{
    const Game *G = S->G;
    assert(0 <= lv && lv <= S->maxdepth && L->settled[lv] == (lv > 0 || S->root_settled));
    survey(S, L->g + (size_t)lv * G->n);
    closure(S, L, lv);
    if (S->tiles == 0) { /* the survey is current after the clearings */
        L->level = lv;
        return STEP_FOUND;
    }
    uint64_t *k0 = L->key0 + (size_t)lv * G->words, *k1 = L->key1 + (size_t)lv * G->words;
    int closed = L->ccnt[lv] > 0;
    if (closed && table_has(S->T, k1)) {
        if (any_set(k0, G->words))
            table_add(S->T, k0);
        return STEP_DEAD;
    }
    int k = list_moves(S, L, lv);
    if (k < 0) {
        PyErr_NoMemory();
        S->failed = 1;
        return STEP_STOP;
    }
    if (k == 0) {
        if (any_set(k0, G->words))
            table_add(S->T, k0);
        if (closed)
            table_add(S->T, k1);
        return STEP_DEAD;
    }
    hash_moves(S, L, lv);
    L->level = lv;
    return STEP_GOING;
}

/* One node of line L: STEP_GOING, STEP_FOUND (the line's frames hold a clearing), STEP_DEAD
 * (the line has searched everything: the board cannot be cleared) or STEP_STOP. */
static int step(Search *S, Line *L)
{
    const Game *G = S->G;
    int n = G->n, words = G->words;
    if (!L->started) {
        L->started = 1;
        L->level = -1;
        if (!tick(S))
            return STEP_STOP;
        memcpy(L->g, S->root, sizeof(cell_t) * n);
        memcpy(L->id, S->root_id, sizeof(int16_t) * n);
        memset(L->key0, 0, sizeof(uint64_t) * words);
        L->settled[0] = S->root_settled;
        return enter(S, L, 0);
    }
    while (L->level >= 0) {
        int lv = L->level;
        if (L->idx[lv] < L->cnt[lv]) {
            assert(lv < S->maxdepth); /* a level has a move only while it has tiles: at most ntiles / 2 */
            Move m = L->moves[L->off[lv] + L->idx[lv]++];
            const int16_t *ids = L->id + (size_t)lv * n;
            uint64_t *child = L->key0 + (size_t)(lv + 1) * words;
            memcpy(child, L->key1 + (size_t)lv * words, sizeof(uint64_t) * words);
            child[ids[m.p] >> 6] |= 1ULL << (ids[m.p] & 63);
            child[ids[m.q] >> 6] |= 1ULL << (ids[m.q] & 63);
            if (table_has_h(S->T, child, m.hash))
                return tick(S) ? STEP_GOING : STEP_STOP;
            cell_t *g = L->g + (size_t)(lv + 1) * n;
            int16_t *id = L->id + (size_t)(lv + 1) * n;
            memcpy(g, L->g + (size_t)lv * n, sizeof(cell_t) * n);
            memcpy(id, ids, sizeof(int16_t) * n);
            play(G, g, id, child, m.p, m.q, L->settled[lv]);
            L->settled[lv + 1] = 1;
            L->played_p[lv] = m.p;
            L->played_q[lv] = m.q;
            if (!tick(S))
                return STEP_STOP;
            int r = enter(S, L, lv + 1);
            return r == STEP_DEAD ? STEP_GOING : r;
        }
        uint64_t *k0 = L->key0 + (size_t)lv * words, *k1 = L->key1 + (size_t)lv * words;
        if (any_set(k0, words))
            table_add(S->T, k0);
        if (L->ccnt[lv] > 0)
            table_add(S->T, k1);
        L->level--;
    }
    return STEP_DEAD;
}

/* The clearing found by line L, as a list of ((row, col), (row, col)). */
static PyObject *witness(const Search *S, const Line *L)
{
    const Game *G = S->G;
    PyObject *out = PyList_New(0);
    for (int lv = 0; out != NULL && lv <= L->level; lv++) {
        for (int i = 0; i <= L->ccnt[lv]; i++) {
            int p, q;
            if (i < L->ccnt[lv]) {
                p = L->cmoves[2 * (L->coff[lv] + i)];
                q = L->cmoves[2 * (L->coff[lv] + i) + 1];
            } else if (lv < L->level) {
                p = L->played_p[lv];
                q = L->played_q[lv];
            } else {
                break;
            }
            assert(!on_ring(G, p) && !on_ring(G, q) && p != q);
            PyObject *pair = Py_BuildValue("((ii)(ii))", p / G->W - 1, p % G->W - 1, q / G->W - 1, q % G->W - 1);
            if (pair == NULL || PyList_Append(out, pair) < 0) {
                Py_XDECREF(pair);
                Py_CLEAR(out);
                break;
            }
            Py_DECREF(pair);
        }
    }
    return out;
}

static long long luby(long long i) /* 1, 1, 2, 1, 1, 2, 4, ... for i = 1, 2, 3, ... */
{
    for (;;) {
        int k = 1;
        while ((1LL << k) - 1 < i)
            k++;
        if ((1LL << k) - 1 == i)
            return 1LL << (k - 1);
        i -= (1LL << (k - 1)) - 1;
    }
}

#define LINES 3

/* Race the lines as the Python search does (movesearch.py, "move ordering, raced"): far alone
 * for a dive, then far, near and board order in turns of `slice` nodes, with a fourth turn for
 * restarts (far with seeded ties, for Luby allowances of dives). Returns the deciding step's
 * result; *winner is the line that found a clearing. */
static int race(Search *S, Line *lines, Line *restart, int dive, int slice, Line **winner)
{
    assert(dive >= 0 && slice >= 1);
    for (int k = 0; k < dive; k++) {
        int r = step(S, &lines[0]);
        if (r != STEP_GOING) {
            *winner = &lines[0];
            return r;
        }
    }
    long long allowance = 0, next = 1;
    uint64_t seed = 0;
    int have = 0;
    for (;;) {
        for (int l = 0; l < LINES; l++)
            for (int s = 0; s < slice; s++) {
                int r = step(S, &lines[l]);
                if (r != STEP_GOING) {
                    *winner = &lines[l];
                    return r;
                }
            }
        if (!have || allowance <= 0) {
            seed++;
            restart->started = 0;
            restart->seed = seed;
            allowance = (long long)(dive > 1 ? dive : 1) * luby(next++);
            have = 1;
        }
        for (int s = 0; s < slice && allowance > 0; s++) {
            allowance--;
            int r = step(S, restart);
            if (r != STEP_GOING) {
                *winner = restart;
                return r;
            }
        }
    }
}

/* ---- the Python function: parse, set up, race, free ------------------------------------ */

/* What search() was asked: the board is read into the game (game_read), the rest kept here. */
typedef struct {
    long long max_nodes, max_table_mb;
    double seconds;
    int dive, slice;    /* the first line's head start (-1: half the tiles, plus 8) and the turns */
} Ask;

/* Parse search()'s arguments and read the board into G (zeroed); 0 on an error (set). */
static int parse(PyObject *args, Game *G, Ask *ask)
{
    int rows, cols, gravity, border;
    PyObject *cells_obj;
    ask->dive = -1;
    ask->slice = 64;
    if (!PyArg_ParseTuple(args, "iiOiiLdL|ii", &rows, &cols, &cells_obj, &gravity, &border, &ask->max_nodes,
                          &ask->seconds, &ask->max_table_mb, &ask->dive, &ask->slice))
        return 0;
    if (ask->slice < 1) {
        PyErr_SetString(PyExc_ValueError, "slice: expected at least 1");
        return 0;
    }
    if (gravity < G_DOWN || gravity > G_RIGHT) {
        PyErr_SetString(PyExc_ValueError, "gravity: expected 1 (down), 2 (up), 3 (left) or 4 (right)");
        return 0;
    }
    return game_read(G, rows, cols, cells_obj, gravity, border);
}

/* Everything one search owns besides the game: its state, its table, its lines, and the start's
 * tile identities (in board order). */
typedef struct {
    Search S;
    Table T;
    Line lines[LINES + 1];
    int16_t *root_id;
} Run;

static void run_free(Run *R)
{
    Search *S = &R->S;
    for (int l = 0; l < LINES + 1; l++)
        line_free(&R->lines[l]);
    free(S->scratch);
    free(S->fill);
    free(S->far);
    free(S->order_t);
    free(S->reaches);
    free(S->save_g);
    free(S->save_id);
    free(S->save_key);
    free(S->child_key);
    free(R->T.keys);
    free(R->root_id);
}

/* Set up a search of the game G (read) as asked, into R (zeroed); 0 without memory (set). */
static int run_setup(Run *R, const Game *G, const Ask *ask)
{
    Search *S = &R->S;
    Table *T = &R->T;
    R->root_id = malloc(sizeof(int16_t) * G->n);
    if (R->root_id == NULL) {
        PyErr_NoMemory();
        return 0;
    }
    for (int p = 0, tiles = 0; p < G->n; p++) /* the starting tiles, numbered in board order */
        R->root_id[p] = G->start[p] > 0 ? (int16_t)tiles++ : -1;
    S->G = G;
    S->T = T;
    S->root = G->start;
    S->root_id = R->root_id;
    S->root_settled = G->start_settled;
    S->maxdepth = G->ntiles / 2 + 1;
    S->max_nodes = ask->max_nodes;
    S->deadline = ask->seconds >= 0 ? now() + ask->seconds : -1.0;
    S->scratch = malloc(sizeof(int) * (G->ntiles + 1));
    S->fill = calloc(G->ntypes + 2, sizeof(int));
    S->far = calloc(G->ntypes + 2, sizeof(int));
    S->order_t = calloc(G->ntypes + 2, sizeof(int));
    S->reaches = malloc(sizeof(Reach) * (G->ntiles + 1));
    S->save_g = malloc(sizeof(cell_t) * G->n);
    S->save_id = malloc(sizeof(int16_t) * G->n);
    S->save_key = calloc(G->words, sizeof(uint64_t));
    S->child_key = calloc(G->words, sizeof(uint64_t));
    T->words = G->words;
    T->max_bytes = (size_t)(ask->max_table_mb > 0 ? ask->max_table_mb : 0) << 20; /* 0: the first 1,024 slots only */
    T->cap = 1024;
    T->keys = calloc(T->cap * T->words, sizeof(uint64_t));
    int ok = S->scratch && S->fill && S->far && S->order_t && S->reaches && S->save_g && S->save_id && S->save_key &&
             S->child_key && T->keys;
    for (int l = 0; l < LINES + 1 && ok; l++)
        ok = line_init(S, &R->lines[l], l < LINES ? l : ORDER_FAR, 0);
    if (!ok)
        PyErr_NoMemory();
    return ok;
}

/* Race the lines (race()) and say what they found: (status, nodes, moves, recorded) as the
 * head comment describes; NULL on an error (set). */
static PyObject *run_race(Run *R, const Ask *ask)
{
    Search *S = &R->S;
    const Game *G = S->G;
    Line *winner = NULL;
    int r = race(S, R->lines, &R->lines[LINES], ask->dive >= 0 ? ask->dive : G->ntiles / 2 + 8, ask->slice, &winner);
    if (S->failed)
        return NULL;
    assert(S->max_nodes < 0 || S->nodes <= S->max_nodes);
    assert(r == STEP_FOUND || r == STEP_DEAD || S->stop != NULL);
    const char *status = r == STEP_FOUND ? "solvable" : r == STEP_DEAD ? "unsolvable" : S->stop;
    PyObject *moves = r == STEP_FOUND ? witness(S, winner) : Py_None;
    if (moves == NULL)
        return NULL;
    if (moves == Py_None)
        Py_INCREF(Py_None);
    return Py_BuildValue("(sLNn)", status, S->nodes, moves, (Py_ssize_t)R->T.count);
}

/* search(rows, cols, cells, gravity, border, max_nodes, seconds, max_table_mb[, dive, slice]) */
static PyObject *gs_search(PyObject *self, PyObject *args)
{
    (void)self;
    Game G;
    Ask ask;
    Run R;
    memset(&G, 0, sizeof G);
    memset(&R, 0, sizeof R);
    PyObject *result = NULL;
    if (parse(args, &G, &ask) && run_setup(&R, &G, &ask))
        result = run_race(&R, &ask);
    run_free(&R);
    game_free(&G);
    return result;
}

#ifdef LLKGEN_CHECK
/* check_fault(): in the assert build only, for tests/project/test_native_checked.py. It breaks an
 * invariant on purpose (it compacts a line the board does not have), so that the test sees an
 * assert fire and knows the asserts are compiled in. It does not return. */
static PyObject *gs_check_fault(PyObject *self, PyObject *args)
{
    (void)self;
    (void)args;
    Game G;
    memset(&G, 0, sizeof G);
    PyObject *cells = Py_BuildValue("(ii)", 1, 1);
    if (cells == NULL || !game_read(&G, 1, 2, cells, G_DOWN, 1)) {
        Py_XDECREF(cells);
        game_free(&G);
        return NULL;
    }
    Py_DECREF(cells);
    compact_line(&G, G.nlines, G.start, NULL); /* lines 0 .. nlines - 1: the assert fires */
    game_free(&G);
    Py_RETURN_NONE;
}
#endif

static PyMethodDef methods[] = {
    {"search", gs_search, METH_VARARGS,
     "search(rows, cols, cells, gravity, border, max_nodes, seconds, max_table_mb[, dive, slice]) -> "
     "(status, nodes, moves, recorded): the complete move search under gravity (see the source)."},
#ifdef LLKGEN_CHECK
    {"check_fault", gs_check_fault, METH_NOARGS,
     "check_fault(): break an invariant on purpose; the assert build aborts (tests only)."},
#endif
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_gravity_search", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__gravity_search(void) { return PyModule_Create(&module); }
