/* The link rule on bitboards, shared by the C gravity search (llkgen/verifier/_gravity_search.c)
 * and the C model players (llkgen/analysis/_players.c); board.h, beside it, holds the board it
 * runs on. A board is padded with a one-cell ring, and each row's and column's empty cells are
 * one 64-bit mask (so padded sides up to 64). A tile's Reach is its straight-line reach along
 * its row and its column through empty cells; linked() decides the rule (at most two turns,
 * every cell passed empty) from two reaches and the masks. The head comment of
 * _gravity_search.c argues it. Every function is static: each module has its own copy, which
 * its compiler inlines into the hot loops. */
#ifndef LLKGEN_LINKS_H
#define LLKGEN_LINKS_H
#include "check.h"
#include <stdint.h>
#ifdef _MSC_VER
#include <intrin.h>
static inline int ctz64(uint64_t x)
{
    unsigned long i;
    _BitScanForward64(&i, x);
    return (int)i;
}
static inline int clz64(uint64_t x)
{
    unsigned long i;
    _BitScanReverse64(&i, x);
    return 63 - (int)i;
}
#else
#define ctz64(x) __builtin_ctzll(x)
#define clz64(x) __builtin_clzll(x)
#endif


static inline uint64_t span(int a, int b) /* bits a..b, 0 <= a <= b <= 63 */
{
    assert(0 <= a && a <= b && b <= 63);
    uint64_t hi = b >= 63 ? ~0ULL : ((1ULL << (b + 1)) - 1);
    return hi & ~((1ULL << a) - 1);
}

/* The first and last index of the run of set bits of x that contains bit c (bit c itself may
 * be unset: the run of the cells next to it, with c counted in). */
static inline void reach(uint64_t x, int c, int *lo, int *hi)
{
    assert(0 <= c && c <= 63);
    /* ~(x >> (c + 1)) is nonzero: bits at and above the padded width are clear */
    *hi = c >= 63 ? c : c + ctz64(~(x >> (c + 1)));
    uint64_t down = ~x & ((c ? (1ULL << c) : 1ULL) - 1);
    if (c == 0)
        *lo = 0;
    else
        *lo = down ? 64 - clz64(down) : 0;
    assert(*lo <= c && c <= *hi);
}

typedef struct {
    int r, c;           /* row and column */
    int hl, hr, vu, vd; /* reach along the row (columns hl..hr) and the column (rows vu..vd) */
    int open;           /* some neighbour cell is empty */
} Reach;

static int linked(const uint64_t *rowE, const uint64_t *colE, const Reach *a, const Reach *b)
{
    assert(a->r != b->r || a->c != b->c); /* two tiles, not one */
    assert(!a->open || (a->hl <= a->c && a->c <= a->hr && a->vu <= a->r && a->r <= a->vd));
    if (!a->open || !b->open) /* a path's first and last cells are empty neighbours of its ends */
        return (a->r == b->r && (a->c - b->c == 1 || b->c - a->c == 1)) ||
               (a->c == b->c && (a->r - b->r == 1 || b->r - a->r == 1));
    if (a->r == b->r) {
        int lo = a->c < b->c ? a->c : b->c, hi = a->c < b->c ? b->c : a->c;
        if (hi - lo == 1 || (lo + 1 <= hi - 1 && (rowE[a->r] & span(lo + 1, hi - 1)) == span(lo + 1, hi - 1)))
            return 1;
    }
    if (a->c == b->c) {
        int lo = a->r < b->r ? a->r : b->r, hi = a->r < b->r ? b->r : a->r;
        if (hi - lo == 1 || (lo + 1 <= hi - 1 && (colE[a->c] & span(lo + 1, hi - 1)) == span(lo + 1, hi - 1)))
            return 1;
    }
    if (a->r != b->r) { /* horizontal, vertical, horizontal: a middle column */
        int lo = a->hl > b->hl ? a->hl : b->hl, hi = a->hr < b->hr ? a->hr : b->hr;
        int r0 = a->r < b->r ? a->r : b->r, r1 = a->r < b->r ? b->r : a->r;
        uint64_t m = r0 + 1 <= r1 - 1 ? span(r0 + 1, r1 - 1) : 0;
        for (int x = lo; x <= hi; x++)
            if ((colE[x] & m) == m)
                return 1;
    }
    if (a->c != b->c) { /* vertical, horizontal, vertical: a middle row */
        int lo = a->vu > b->vu ? a->vu : b->vu, hi = a->vd < b->vd ? a->vd : b->vd;
        int c0 = a->c < b->c ? a->c : b->c, c1 = a->c < b->c ? b->c : a->c;
        uint64_t m = c0 + 1 <= c1 - 1 ? span(c0 + 1, c1 - 1) : 0;
        for (int y = lo; y <= hi; y++)
            if ((rowE[y] & m) == m)
                return 1;
    }
    return 0;
}

#endif
