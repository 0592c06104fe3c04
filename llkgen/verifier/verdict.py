"""Verdicts are values, not exceptions.

``solvable`` always carries a witness that :func:`llkgen.game.referee.replay` has accepted;
``unsolvable`` carries the sound argument that proves it (a :class:`Proof`); ``unknown`` names
the budget that ran out (a :class:`Limit`). Nothing else is ever reported.

Every closed set here is a ``StrEnum``: it prints, compares and serialises as its value, so
the JSON llkgen writes is the same as when these were plain strings.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal

from llkgen.errors import EXIT_OK, EXIT_UNKNOWN, EXIT_UNSOLVABLE

if TYPE_CHECKING:  # only annotated here: the CLI takes this module's constants without the path finder
    from llkgen.game.board import Cell
    from llkgen.game.path import Move

#: The default search-node budget of one verification: the one place this number lives.
DEFAULT_NODES = 200_000

#: The default budget of each verification behind a hint or a move label (a few milliseconds on most boards).
ADVICE_NODES = 20_000

#: The largest ``Budget.seconds`` the library and the CLI's ``--budget`` take: about 11.6 days,
#: longer than any CI job, and far below the largest timeout the threading layer takes
#: (``threading.TIMEOUT_MAX``, about 9.2e9 s on Linux; a budget of 1e10 s crashed with
#: "timestamp out of range" where 9e9 still ran).
MAX_BUDGET_SECONDS = 1_000_000


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


class Limit(StrEnum):
    """A budget that ran out: what an ``unknown`` verdict carries (``{"budget": "nodes"}`` in
    its JSON proof), what :class:`OutOfBudget` raises and what the C search reports."""

    #: The search-node budget (``Budget.nodes``): deterministic, the same on every machine.
    NODES = "nodes"
    #: The wall-clock budget (``Budget.seconds``, or a caller's deadline).
    SECONDS = "seconds"


class Engine(StrEnum):
    """Which verifier :func:`llkgen.verify` runs (``engine=``; ``llkgen solve --engine``)."""

    #: The portfolio: the sound shortcuts, then the exact searches, with CP-SAT where it suits.
    AUTO = "auto"
    #: The exact searches alone, no CP-SAT.
    SEARCH = "search"
    #: The CP-SAT model alone (gravity ``none``; under gravity the exact move search decides).
    CPSAT = "cpsat"
    #: Plain depth-first search with a table of dead boards: the benchmarks' yardstick.
    BASELINE = "baseline"


class Argument(StrEnum):
    """The sound argument behind an ``unsolvable`` verdict: a :class:`Proof`'s ``argument``.
    docs/verifier.md, "How a verdict is reached", explains each."""

    #: Tiles that can never be removed, even if every other tile that could ever link were
    #: gone (gravity ``none``); evidence: ``locked``.
    LOCK_TEST = "lock-test"
    #: The flow pairing check: the tiles of one type can never all be paired (gravity
    #: ``none``, walls); evidence: ``pairing``, the check's own proof.
    PAIRING_CHECK = "pairing-check"
    #: An odd number of tiles of one type in a part of the board walls cut off (gravity);
    #: evidence: ``type`` and ``tiles``.
    COMPONENT_PARITY = "component-parity"
    #: The tiles of one type can never all be paired wherever gravity takes them; evidence:
    #: ``type`` and ``tiles``.
    REACH_PAIRING = "reach-pairing"
    #: Tiles that can never be removed whatever order their stacks empty in (gravity);
    #: evidence: ``locked``.
    GRAVITY_LOCK = "gravity-lock"
    #: The exact CP-SAT model of the elimination order is infeasible; evidence: ``model``,
    #: the model's size.
    CPSAT_INFEASIBLE = "cpsat-infeasible"
    #: A complete search explored every line of play; evidence: ``engine`` (the stage that
    #: searched) and ``nodes``.
    EXHAUSTIVE_SEARCH = "exhaustive-search"
    #: A move is fatal because the board before it is already unsolvable (move labels);
    #: evidence: ``board``, that board's proof.
    BOARD_UNSOLVABLE = "board-unsolvable"


#: The evidence fields each argument carries, in the order its JSON lists them.
_EVIDENCE: dict[Argument, tuple[str, ...]] = {
    Argument.LOCK_TEST: ("locked",),
    Argument.PAIRING_CHECK: ("pairing",),
    Argument.COMPONENT_PARITY: ("type", "tiles"),
    Argument.REACH_PAIRING: ("type", "tiles"),
    Argument.GRAVITY_LOCK: ("locked",),
    Argument.CPSAT_INFEASIBLE: ("model",),
    Argument.EXHAUSTIVE_SEARCH: ("engine", "nodes"),
    Argument.BOARD_UNSOLVABLE: ("board",),
}


def _cells(cells: tuple[Cell, ...]) -> list[list[int]]:
    return [[r, c] for r, c in cells]


@dataclass(frozen=True)
class PairingProof:
    """Why a board can never be cleared, checkable by hand.

    ``kind`` ``"odd-component"``: ``cells`` are tiles of ``type`` that can only ever pair
    among themselves, and there is an odd number of them.  ``kind`` ``"hall"``: the
    ``cells`` of ``type`` can only ever pair with ``partners``, which are fewer.  "Can ever
    pair" means a wall-free line exists that avoids every tile ``facts`` keep on the board
    at that step; each fact is ``("same-step", (x, p), ())`` or ``("before", ys, (x,))``
    (the tiles ys go strictly before x), in the order derived.
    """

    kind: str
    type: int
    cells: tuple[Cell, ...]
    partners: tuple[Cell, ...]
    reason: str
    facts: tuple[tuple[str, tuple[Cell, ...], tuple[Cell, ...]], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "type": self.type, "cells": [list(c) for c in self.cells],
                "partners": [list(c) for c in self.partners], "reason": self.reason,
                "facts": [[f, [list(c) for c in a], [list(c) for c in b]]
                          for f, a, b in self.facts]}


@dataclass(frozen=True)
class Proof(Mapping[str, object]):
    """Why a board can never be cleared: a sound ``argument`` and its evidence, each field
    typed. Which fields an argument fills is listed on its :class:`Argument` member (the
    others stay ``None``); a proof missing one raises ``ValueError`` when built.

    ``component`` (gravity): the tiles of the part of the board, cut off by walls from the
    rest, that the argument is about (the argument then speaks of that part alone).
    ``bottlenecks`` and ``bottlenecks_incomplete`` are the designer's explanation that
    :func:`llkgen.analysis.explain.explain_verdict` adds to a proof naming locked tiles: what
    blocks each locked type (its own JSON objects), and why it stopped early if it did.

    :meth:`to_json` gives the proof as llkgen's JSON writes it. A ``Proof`` also reads as that
    mapping (``proof["argument"]``, ``proof.get("locked")``), for programs written when a
    proof was a ``dict``; equality is a dataclass's (field by field), so a ``Proof`` never
    equals a ``dict``: compare ``proof.to_json()``."""

    argument: Argument
    #: ``lock-test``, ``gravity-lock``: the tiles that can never be removed.
    locked: tuple[Cell, ...] | None = None
    #: ``component-parity``, ``reach-pairing``: the tile type that can never be all paired...
    type: int | None = None
    #: ... and its tiles.
    tiles: tuple[Cell, ...] | None = None
    #: ``pairing-check``: the flow pairing check's proof (its fields are the JSON's).
    pairing: PairingProof | None = None
    #: ``cpsat-infeasible``: the model's size, ``vars`` and ``constraints`` (those known).
    model: Mapping[str, int] | None = None
    #: ``exhaustive-search``: the stage whose search was complete (``move-search``, ...)...
    engine: str | None = None
    #: ... and the nodes it searched.
    nodes: int | None = None
    #: ``board-unsolvable``: the proof that the board before the move is already unsolvable.
    board: Proof | None = None
    component: tuple[Cell, ...] | None = None
    bottlenecks: tuple[Mapping[str, object], ...] | None = None
    bottlenecks_incomplete: str | None = None

    def __post_init__(self) -> None:
        missing = [name for name in _EVIDENCE[self.argument] if getattr(self, name) is None]
        if missing:
            raise ValueError(f"a {self.argument} proof needs {', '.join(missing)}")

    def to_json(self) -> dict[str, object]:
        """The proof as llkgen's JSON writes it: ``argument``, its evidence, then
        ``component``, ``bottlenecks`` and ``bottlenecks_incomplete`` when set."""
        out: dict[str, object] = {"argument": self.argument}
        if self.pairing is not None:
            out.update(self.pairing.to_json())
        for name in _EVIDENCE[self.argument]:
            value = getattr(self, name)
            if name in ("locked", "tiles"):
                out[name] = _cells(value)
            elif name == "board":
                out[name] = value.to_json()
            elif name == "model":
                out[name] = dict(value)
            elif name != "pairing":
                out[name] = value
        if self.component is not None:
            out["component"] = _cells(self.component)
        if self.bottlenecks is not None:
            out["bottlenecks"] = list(self.bottlenecks)
        if self.bottlenecks_incomplete is not None:
            out["bottlenecks_incomplete"] = self.bottlenecks_incomplete
        return out

    # -- read as the mapping of its JSON (programs written for the dict a proof once was) ----
    def __getitem__(self, key: str) -> object:
        return self.to_json()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_json())

    def __len__(self) -> int:
        return len(self.to_json())


def evidence_json(proof: Proof | None, limit: Limit | None) -> dict[str, object] | None:
    """The ``proof`` key of llkgen's JSON for an outcome with this evidence: the proof's
    JSON; else ``{"budget": limit}`` naming the budget that ran out; else null."""
    if proof is not None:
        return proof.to_json()
    return None if limit is None else {"budget": limit}


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

    def __init__(self, nodes: int | None | Literal["default"] = "default", seconds: float | None = None) -> None:
        if nodes == "default":
            nodes = DEFAULT_NODES if seconds is None else None
        object.__setattr__(self, "nodes", nodes)
        object.__setattr__(self, "seconds", seconds)




@dataclass(frozen=True)
class Verdict:
    """What :func:`llkgen.verify` concluded about a board, with its evidence. Frozen: the
    verifier builds a new verdict (``dataclasses.replace``) rather than change one.

    * ``status`` :data:`SOLVABLE`: ``moves`` is the witness, a removal order that clears the
      board, each move with the line drawn for it, replayed by the referee;
    * :data:`UNSOLVABLE`: ``proof`` is the sound argument (a :class:`Proof`);
    * :data:`UNKNOWN`: ``limit`` names the budget that ran out (a :class:`Limit`).

    The other evidence fields are empty (``[]``, ``None``); building a verdict that breaks
    this raises ``ValueError``. ``reason`` is a sentence for a person, never parsed.

    ``stats`` are the verifier's counters: ``stage`` (the stage that decided), ``nodes``,
    ``time_ms`` and more by stage. It stays a ``dict``, not a dataclass: its keys differ from
    stage to stage (CP-SAT's own counters, the native search's, a split board's parts) and
    its JSON is written as it is, in the order the verifier set them, which a typed record
    would have to re-create key by key for each stage. ``moves`` and ``stats`` are the
    verdict's own: nothing changes them once it is built."""

    status: Status
    moves: list[Move] = field(default_factory=list)
    reason: str = ""
    proof: Proof | None = None
    limit: Limit | None = None
    stats: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        solvable, unsolvable = self.status == SOLVABLE, self.status == UNSOLVABLE
        if (self.proof is not None) != unsolvable or (self.limit is not None) != (self.status == UNKNOWN) \
                or (self.moves and not solvable):
            raise ValueError(f"a {self.status} verdict carries a witness only when solvable, a proof only "
                             "when unsolvable and a limit only when unknown")

    @property
    def solution(self) -> list[list[list[int]]]:
        """The witness as ``[[[r1, c1], [r2, c2]], ...]`` (empty unless solvable)."""
        return [[list(m.a), list(m.b)] for m in self.moves]

    def to_json(self) -> dict[str, object]:
        """The verdict as data, every key present (``llkgen solve --json`` adds its format and
        budget): ``solution`` and ``paths`` (the line drawn for each of its moves) when
        solvable, else null; ``proof`` the proof's JSON when unsolvable, ``{"budget": limit}``
        when unknown, else null; ``stats`` the verifier's counters (timings included: not for
        files that must be reproducible)."""
        solvable = self.status == SOLVABLE
        return {"verdict": self.status, "reason": self.reason,
                "solution": self.solution if solvable else None,
                "paths": [[list(p) for p in m.path] for m in self.moves] if solvable else None,
                "proof": evidence_json(self.proof, self.limit), "stats": self.stats}


class OutOfBudget(Exception):
    """Raised inside a search when a budget runs out; ``which`` is the one that did."""

    def __init__(self, which: Limit):
        super().__init__(which)
        self.which = which
