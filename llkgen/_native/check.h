/* Whether the C modules check their invariants. Every `assert` in llkgen's C states an invariant
 * its head comment argues (a board's bounds and padding, a line's order under compaction, a
 * table index in range, the node count within its budget). A regular build compiles them out
 * (NDEBUG, which Python's own compiler flags set, and which this header sets if they do not);
 * a debugging build defines LLKGEN_CHECK (setup.py does, with LLKGEN_CHECK=1 in the
 * environment) and every assert runs, as does the comparison of the model players' updated
 * move lists with fresh ones (LLKGEN_CHECK_MOVES, llkgen/analysis/_players.c).
 * tests/project/test_native_checked.py builds that way and runs the C-versus-Python tests on it.
 *
 * Include it before <assert.h> is included again: <assert.h> defines assert anew each time,
 * from NDEBUG as it stands. */
#ifndef LLKGEN_CHECK_H
#define LLKGEN_CHECK_H
#ifdef LLKGEN_CHECK
#undef NDEBUG
#ifndef LLKGEN_CHECK_MOVES
#define LLKGEN_CHECK_MOVES
#endif
#elif !defined(NDEBUG)
#define NDEBUG
#endif
#include <assert.h>
#endif
