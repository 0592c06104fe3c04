"""Verdicts are values, not exceptions.

``solvable`` always carries a witness that :func:`llkgen.game.referee.replay` has accepted;
``unsolvable`` carries the sound argument that proves it; ``unknown`` names the budget that
ran out. Nothing else is ever reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Literal

from llkgen.errors import EXIT_OK, EXIT_UNKNOWN, EXIT_UNSOLVABLE

if TYPE_CHECKING:  # only annotated here: the CLI takes this module's constants without the path finder
    from llkgen.game.path import Move

#: The default search-node budget of one verification: the one place this number lives.
DEFAULT_NODES = 200_000

#: The default budget of each verification behind a hint or a move label (a few milliseconds on most boards).
ADVICE_NODES = 20_000


class Status(StrEnum):
    """What a verification concluded. A ``StrEnum``, so it prints, compares and serialises as
    its value (``"solvable"``), and the JSON llkgen writes is unchanged by it."""

    #: Cleared by a witness the referee replayed.
    SOLVABLE = "solvable"
    #: Proved impossible by a sound argument or a complete search.
    UNSOLVABLE = "unsolvable"
    #: A budget ran out first; the verdict's reason names it.
    UNKNOWN = "unknown"

    @property
    def exit_code(self) -> int:
        """The CLI's exit code for this verdict: 0 solvable, 3 unsolvable, 4 unknown."""
        return {Status.SOLVABLE: EXIT_OK, Status.UNSOLVABLE: EXIT_UNSOLVABLE}.get(self, EXIT_UNKNOWN)


SOLVABLE = Status.SOLVABLE
UNSOLVABLE = Status.UNSOLVABLE
UNKNOWN = Status.UNKNOWN


@dataclass(frozen=True, init=False)
class Budget:
    """Limits for one verification. ``nodes`` counts search nodes and is deterministic: a
    node budget alone gives the same verdict on every run and every machine. ``seconds`` is a
    wall-clock guard for interactive use; it can make the verdict depend on machine speed, so
    the generator never sets it.

    Seconds come first: ``Budget(seconds=S)`` has no node limit, so a search given ten seconds
    is never stopped at :data:`DEFAULT_NODES` nodes after two of them (200,000 nodes of the
    compiled move search take about 4 s on a full 10x16 board under gravity). ``Budget()``
    has :data:`DEFAULT_NODES` nodes; ``Budget(nodes=N, seconds=S)`` both; ``nodes=None`` none."""

    nodes: int | None
    seconds: float | None

    def __init__(self, nodes: int | None | Literal["default"] = "default", seconds: float | None = None):
        if nodes == "default":
            nodes = DEFAULT_NODES if seconds is None else None
        object.__setattr__(self, "nodes", nodes)
        object.__setattr__(self, "seconds", seconds)


@dataclass
class Verdict:
    status: Status
    moves: list[Move] = field(default_factory=list)
    reason: str = ""
    proof: dict | None = None
    stats: dict = field(default_factory=dict)

    @property
    def solution(self) -> list[list[list[int]]]:
        """The witness as ``[[[r1, c1], [r2, c2]], ...]`` (empty unless solvable)."""
        return [[list(m.a), list(m.b)] for m in self.moves]

    def to_json(self) -> dict:
        """The verdict as data, every key present (``llkgen solve --json`` adds its format and
        budget): ``solution`` and ``paths`` (the line drawn for each of its moves) when
        solvable, else null; ``proof`` unless solvable, else null; ``stats`` the verifier's
        counters (timings included: not for files that must be reproducible)."""
        solvable = self.status == SOLVABLE
        return {"verdict": self.status, "reason": self.reason,
                "solution": self.solution if solvable else None,
                "paths": [[list(p) for p in m.path] for m in self.moves] if solvable else None,
                "proof": None if solvable else self.proof, "stats": self.stats}


class OutOfBudget(Exception):
    """Raised inside a search when a budget runs out; carries which one."""

    def __init__(self, which: str):
        super().__init__(which)
        self.which = which
