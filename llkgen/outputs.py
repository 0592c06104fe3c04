"""The JSON documents llkgen's commands print (``--json``), in one vocabulary.

It sits above :mod:`llkgen.analysis`, whose values it prints (:class:`~llkgen.analysis.advice.Hint`,
:class:`~llkgen.analysis.advice.MoveLabel`, :class:`~llkgen.analysis.reshuffle.Reshuffled`), and
below :mod:`llkgen.jobs` and the command line, which print with it. The shapes a level file
holds (a cell, a move, a path, a solution) are the level format's own
(:func:`llkgen.formats.level.move_json` and its neighbours); the documents of the long jobs
(``make``, ``verify``, ``grade``) are built beside them in :mod:`llkgen.jobs`.

Each document is one object whose first key is ``"format": "llkgen.<kind>/<n>"``;
``llkgen/schemas/<kind>.schema.json`` describes it (``llkgen schema <kind>``), and
``vocabulary.schema.json`` holds the shapes below, which every schema copies. The level file
(``llkgen.level/1``) is the anchor: a thing a level file holds is printed as the file holds it.

=============  ====================  ============================================================
thing          name                  shape
=============  ====================  ============================================================
cell           (in a move, a list)   ``[row, col]``, 0-based; in text lines too: ``[0, 4]``
point          (in a path)           ``[row, col]``; ``-1``, ``rows`` and ``cols`` are the ring
move           ``move``              ``[[r1, c1], [r2, c2]]``: the two tiles removed together;
                                     ``pair`` in ``bottlenecks``: a locked tile and its partner
path           ``path``              ``[point, ...]``: the corners of the line drawn for a move,
                                     from its first tile to its second
solution       ``solution``          ``[move, ...]``: a removal order that clears the board;
                                     ``witness``: one that clears it after ``move``
verdict        ``verdict``           ``"solvable"``, ``"unsolvable"`` or ``"unknown"``
                                     (:class:`~llkgen.verifier.verdict.Status`)
check          ``check``             ``verify``'s outcome of a check, beside the verdict: ``ok``,
                                     ``unsolvable``, ``unknown``, ``failed``; for a file also
                                     ``invalid``, ``skipped``
                                     (:class:`~llkgen.jobs.check_report.CheckStatus`)
proof          ``proof``             an object: ``argument`` names the sound argument of an
                                     unsolvable verdict; ``{"budget": "nodes"|"seconds"}`` names
                                     what ran out for an unknown one; ``bottlenecks`` (``solve``)
                                     what blocks each locked tile (:mod:`~llkgen.analysis.explain`)
budget         ``budget``            ``{"nodes": N|null, "seconds": S|null}``: the limits a
                                     verification ran under (null: none)
reason         ``reason``            a sentence for a person, never parsed
metrics        ``metrics``           a level's measures, as its file stores them
=============  ====================  ============================================================

A count is never named like a list: ``moves`` is always a list, ``given`` and ``applied``
count moves. The one place a list's name counts is a summary, which counts what its keys name:
``verify``'s and ``grade``'s ``summary``, and ``merge --json``, whose whole document is one
(``levels``, ``shards``). Every key a schema lists is always present; ``null`` means "none".

Two keys have a second meaning, each told apart by its JSON type, so a reader never has to
guess. They are documented rather than renamed: programs load these documents, and a rename
would break them for no gain in what they can tell.

* ``path``: a **list** of points is the line drawn for a move (``moves``, ``hint``,
  ``move-labels``); a **string** is a file's path (``make`` and ``merge`` reports, a spec's
  ``export.path``, a part of a pack directory's ``index.json``).
* ``budget``: an **object** is the limits a verification ran under, ``{"nodes", "seconds"}`` (a
  level file's ``certificate.budget`` keeps ``nodes`` alone: its certificate never depends on
  a clock); a **string** inside a ``proof`` names which of those limits ran out, ``"nodes"`` or
  ``"seconds"``: the proof of an ``unknown`` verdict.

A measure is a plain number where a level file stores it (``metrics.difficulty``,
``metrics.random_clear_rate``, a player's clear rate), and an object in ``grade --json``:
``{"value", "se", "runs"}`` for the difficulty score, ``{"rate", "se", "runs"}`` for a clear
rate. A level file carries what a game reads (the number; ``difficulty_se`` beside it), while
``grade`` re-measures, and its reader needs each value's standard error and sample size to tell
whether a drift from the stored number is more than noise.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from llkgen.formats.level import Level, level_to_json, move_json, path_json, solution_json
from llkgen.verifier.verdict import SOLVABLE, Budget, Status, Verdict, evidence_json

if TYPE_CHECKING:  # annotations only: printing a document needs none of these modules
    from llkgen.analysis.advice import Hint, MoveLabel
    from llkgen.analysis.reshuffle import Reshuffled
    from llkgen.game.board import Rules
    from llkgen.game.path import Move
    from llkgen.game.referee import ReplayResult

MOVES_FORMAT = "llkgen.moves/1"
MOVE_LABELS_FORMAT = "llkgen.move-labels/1"
HINT_FORMAT = "llkgen.hint/1"
RESHUFFLE_FORMAT = "llkgen.reshuffle/1"
REPLAY_FORMAT = "llkgen.replay/2"
SOLVE_FORMAT = "llkgen.solve/1"
MERGE_REPORT_FORMAT = "llkgen.merge-report/1"



def budget_json(budget: Budget) -> dict[str, Any]:
    return {"nodes": budget.nodes, "seconds": budget.seconds}


def drawn_json(m: Move) -> dict[str, Any]:
    """A removable move and the line drawn for it: ``{"move", "path"}``."""
    return {"move": move_json(m.a, m.b), "path": path_json(m.path)}


def moves_json(found: Sequence[Move], tiles_left: int) -> dict[str, Any]:
    """``llkgen moves --json``: every move removable now, with its path. No move and tiles
    left: the board is dead."""
    return {"format": MOVES_FORMAT, "moves": [drawn_json(m) for m in found], "tiles_left": tiles_left}


def label_json(x: MoveLabel) -> dict[str, Any]:
    """One labelled move: ``safe`` carries its ``witness`` (the board after the move cleared,
    replayed), ``fatal`` and ``unknown`` their ``proof``; the other is null."""
    # Imported here for cost: ``llkgen moves`` without --classify prints with this module and
    # never loads the analysis; a label exists only once the analysis has run.
    from llkgen.analysis.advice import SAFE

    safe = x.label == SAFE
    return {**drawn_json(x.move), "label": x.label, "reason": x.reason,
            "witness": solution_json(x.witness) if safe else None,
            "proof": None if safe else evidence_json(x.proof, x.limit)}


def move_labels_json(labels: Sequence[MoveLabel], summary: dict[str, int], tiles_left: int,
                     budget: Budget) -> dict[str, Any]:
    """``llkgen moves --classify --json``: each removable move labelled, the count of each
    label, and the limits (``budget.nodes`` for each verification, ``seconds`` for the whole)."""
    return {"format": MOVE_LABELS_FORMAT, "moves": [label_json(x) for x in labels], "summary": summary,
            "tiles_left": tiles_left, "budget": budget_json(budget)}


def hint_json(found: Hint, budget: Budget) -> dict[str, Any]:
    """``llkgen hint --json``: the verdict on the board and, when solvable with tiles left, a
    ``move``, its ``path`` and the ``witness`` that clears the board after it (all null
    otherwise; an empty board is solvable with no move and an empty witness)."""
    verdict, move = found.verdict, found.move
    return {"format": HINT_FORMAT, "verdict": verdict,
            "move": None if move is None else move_json(move.a, move.b),
            "path": None if move is None else path_json(move.path),
            "witness": solution_json(found.witness) if verdict == SOLVABLE else None,
            "proof": evidence_json(found.proof, found.limit), "reason": found.reason, "budget": budget_json(budget)}


def reshuffle_json(verdict: Status, reason: str, seed: int, attempts: int | None = None,
                   level: dict | None = None) -> dict[str, Any]:
    """``llkgen reshuffle --json``: solvable with the new ``level`` (the level object
    ``--out`` writes, its ``solution`` replayed) and the ``attempts`` it took; unsolvable when
    no arrangement of the tiles can be cleared (proven); unknown when none was certified
    within the limits. ``level`` and ``attempts`` are null unless solvable."""
    return {"format": RESHUFFLE_FORMAT, "verdict": verdict, "reason": reason, "seed": seed,
            "attempts": attempts, "level": level}


def reshuffled_level(done: Reshuffled, rules: Rules, id: str | None) -> dict[str, Any]:
    """The level ``llkgen reshuffle --out`` writes: the new board under the old ``rules`` and
    ``id``, its replayed ``solution``, and ``"reshuffle": {"seed", "attempts"}``."""
    extra = {"solution": solution_json(done.witness), "reshuffle": {"seed": done.seed, "attempts": done.attempts}}
    return level_to_json(Level(done.board, rules, id, extra))


def reshuffled_json(done: Reshuffled, reason: str, level: dict) -> dict[str, Any]:
    return reshuffle_json(SOLVABLE, reason, done.seed, done.attempts, level)


def replay_json(result: ReplayResult, given: int, error: str | None = None) -> dict[str, Any]:
    """``llkgen replay --json``: the referee's :class:`~llkgen.game.referee.ReplayResult` as
    data, ``given`` the number of moves it was given; ``error`` is what the text form prints
    after ``FAILED:``, null when the board ends cleared, unless ``error`` says otherwise: with
    no moves to check (the level stores no solution), the result of replaying none and why."""
    done, data = result.ok and result.cleared, result.to_json()
    return {"format": REPLAY_FORMAT, "ok": data["ok"], "cleared": data["cleared"], "given": given, **data,
            "error": error if error is not None else None if done else result.describe()}


def solve_json(verdict: Verdict, budget: Budget) -> dict[str, Any]:
    """``llkgen solve --json``: the :class:`~llkgen.verifier.verdict.Verdict` and the limits it
    was reached under."""
    return {"format": SOLVE_FORMAT, **verdict.to_json(), "budget": budget_json(budget)}


def merge_report_json(path: str, levels: int, shards: int) -> dict[str, Any]:
    """``llkgen merge --json``: the pack written, its number of levels and of shards merged."""
    return {"format": MERGE_REPORT_FORMAT, "path": path, "levels": levels, "shards": shards}
