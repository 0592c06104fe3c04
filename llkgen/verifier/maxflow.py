"""Maximum flow and minimum cut by Dinic's algorithm, on integer capacities.

A plain, general flow network: the verifier's pairing proof (:mod:`llkgen.verifier.pairing_check`)
and the designer's explanation of locked tiles (:mod:`llkgen.analysis.explain`) build their
networks on it. It knows nothing about boards.
"""

from __future__ import annotations

from typing import NamedTuple

INF = 1 << 62
"""Capacity of an uncapacitated edge.  Finite cuts are far smaller (a board has
at most 64 * 64 tiles), so ``value >= INF`` means "no finite cut exists"."""


class FlowResult(NamedTuple):
    value: int
    source_side: tuple[int, ...]            # sorted: nodes reachable from s in the residual graph
    cut_edges: list[tuple[int, int, int]]   # (u, v, cap), source side -> sink side, by edge id
    flows: tuple[int, ...] = ()              # flow on each edge, indexed by edge id

class FlowNetwork:
    """Directed network on nodes ``0..n-1`` with integer capacities.

    Arcs live in flat parallel lists (``head``/``nxt``/``to``/``cap``); edge ``i``
    is arc ``2i`` and its residual twin is arc ``2i+1``, so ``to[a ^ 1]`` is the
    tail of arc ``a``.  ``max_flow`` works on a copy of the capacities, so one
    network can answer many ``(s, t)`` queries.
    """

    def __init__(self, n: int):
        if n < 0:
            raise ValueError(f"node count must be >= 0, found {n}")
        self.n = n
        self._head = [-1] * n
        self._nxt: list[int] = []
        self._to: list[int] = []
        self._cap: list[int] = []

    def add_edge(self, u: int, v: int, cap: int) -> int:
        """Add edge u -> v with capacity ``cap`` (int >= 0); return its edge id."""
        if not (0 <= u < self.n and 0 <= v < self.n):
            raise ValueError(f"edge ({u}, {v}) outside nodes 0..{self.n - 1}")
        if not isinstance(cap, int) or cap < 0:
            raise ValueError(f"capacity must be an int >= 0, found {cap!r}")
        for a, b, c in ((u, v, cap), (v, u, 0)):
            self._nxt.append(self._head[a])
            self._head[a] = len(self._to)
            self._to.append(b)
            self._cap.append(c)
        return len(self._to) // 2 - 1

    def max_flow(self, s: int, t: int) -> FlowResult:
        """Maximum s-t flow, with a minimum cut as its certificate.

        Guarantee: ``value == sum(cap for _, _, cap in cut_edges)``, ``s`` is in
        ``source_side`` and ``t`` is not, and every s-t path uses a cut edge.  A
        flow of ``value`` (``flows``) shows no smaller cut exists, the cut shows no
        larger flow exists: either fact can be re-checked without trusting this
        code.  Dinic: BFS level graph, then an iterative DFS blocking flow with
        current-arc pointers, so deep graphs cannot hit the recursion limit.
        """
        n, head, nxt, to = self.n, self._head, self._nxt, self._to
        if not (0 <= s < n and 0 <= t < n):
            raise ValueError(f"source {s} / sink {t} outside nodes 0..{n - 1}")
        if s == t:
            raise ValueError(f"source and sink must differ, both are {s}")
        cap = self._cap[:]
        value = 0
        while True:
            level = [-1] * n
            level[s] = 0
            queue = [s]
            for u in queue:
                a = head[u]
                while a != -1:
                    if cap[a] and level[to[a]] < 0:
                        level[to[a]] = level[u] + 1
                        queue.append(to[a])
                    a = nxt[a]
            if level[t] < 0:
                break          # level >= 0 now marks exactly the residual source side
            cur = head[:]
            path: list[int] = []
            u = s
            while True:
                if u == t:
                    push = min(cap[a] for a in path)
                    for a in path:
                        cap[a] -= push
                        cap[a ^ 1] += push
                    value += push
                    k = next(i for i, a in enumerate(path) if not cap[a])
                    u = to[path[k] ^ 1]
                    del path[k:]
                    continue
                a = cur[u]
                while a != -1 and not (cap[a] and level[to[a]] == level[u] + 1):
                    a = nxt[a]
                cur[u] = a
                if a != -1:
                    path.append(a)
                    u = to[a]
                elif u == s:
                    break
                else:          # dead end: retreat and skip the arc that led here
                    a = path.pop()
                    u = to[a ^ 1]
                    cur[u] = nxt[a]
        side = [x >= 0 for x in level]
        cut = [(to[a ^ 1], to[a], self._cap[a]) for a in range(0, len(to), 2)
               if self._cap[a] and side[to[a ^ 1]] and not side[to[a]]]
        flows = tuple(self._cap[a] - cap[a] for a in range(0, len(to), 2))
        return FlowResult(value, tuple(v for v in range(n) if side[v]), cut, flows)
