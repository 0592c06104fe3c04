"""What the command line prints and how it stops, apart from the Typer commands themselves
(:mod:`llkgen.cli`): moves, proofs and level lines as text, library messages with the flags
that passed their arguments (:func:`with_flags`), the progress display of ``make``, streams
that show any character, and the signals that end a run with a message. The JSON documents are
:mod:`llkgen.outputs`; the help texts are on the options (:mod:`llkgen.cli`).

A cell is written ``[row, col]`` in every line, as in JSON (:func:`cell_text`).

Nothing here parses arguments; nothing here imports Typer.
"""

from __future__ import annotations

import _thread
import os
import re
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from llkgen.errors import (
    EXIT_OK,
    EXIT_UNKNOWN,
    EXIT_UNSOLVABLE,
    LevelFormatError,
    LlkgenError,
    OutputError,
    UsageError,
)
from llkgen.formats.level import read_json
from llkgen.generation.limits import STARTER
from llkgen.outputs import move_labels_json
from llkgen.text import json_dumps, printable
from llkgen.verifier.verdict import Budget


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"

def cell_text(cell) -> str:
    """A cell (or a point of a path) in a line of text: ``[0, 4]``, as JSON writes it."""
    return f"[{cell[0]}, {cell[1]}]"

def cells_text(cells) -> str:
    return " ".join(cell_text(c) for c in cells)

def move_text(board, m) -> str:
    """``type 2: [0, 1] [0, 3]  via [0, 1] -> [0, 3]``: a move, its tiles' type and its path."""
    path = " -> ".join(cell_text(p) for p in m.path)
    return f"type {board[m.a]}: {cell_text(m.a)} {cell_text(m.b)}  via {path}"

def level_heading(lv, ref: str) -> str:
    """The comment line above a board in the text form: its id (or file name), size and rules."""
    return printable(f"# {lv.id or Path(ref).name}: {lv.board.rows}x{lv.board.cols}, {lv.rules.describe()}")


def shipped_note(ref: str, name: str, source: object) -> str:
    """``make``'s note on stderr when ``--config NAME.yaml`` names no file here and the shipped
    spec NAME is made instead (:func:`llkgen.generation.limits.shipped_fallback`): which spec,
    and how to get a copy of it to edit, ``llkgen init`` for the starter."""
    copy = f"llkgen init {name}" if name == STARTER else f"cp {source} {ref}"
    return printable(f"note: {ref}: no such file here: making the shipped spec {name} (a copy to edit: {copy})")


def example_kept_whole(doc: str | None) -> str | None:
    """A command's help ``doc`` with its ``Example:`` line marked to be printed as written: click
    rewraps every paragraph to the terminal (at most 80 columns), and an example cut in two no
    longer runs as printed, but it leaves a paragraph that starts with a ``\\b`` line alone."""
    return None if doc is None else re.sub(r"^([ \t]*)(Example: )", "\\1\b\n\\1\\2", doc, flags=re.M)


def no_solution_text(ref: str) -> str:
    """Why ``llkgen replay`` has nothing to check: the level ``ref`` stores no solution."""
    return f"{ref}: no stored solution: expected a list of moves in \"solution\" (or give a MOVES.json file)"


def moves_to_replay(lv, ref: str, moves_file: Path | None) -> list:
    """What ``llkgen replay`` checks: the moves of ``moves_file``, else the level's stored
    solution; neither raises :class:`LevelFormatError`."""
    if moves_file is not None:
        return load_moves(moves_file)
    if isinstance(lv.solution, list):
        return lv.solution
    raise LevelFormatError(no_solution_text(ref))


def label_lines(board, labels: list, summary: dict[str, int]) -> list[str]:
    """``moves --classify`` as text: a line per removable pair with its label, then the counts
    (and, when no pair is left on a board with tiles, that it is dead)."""
    lines = [f"{x.label:<7} {move_text(board, x.move)}" for x in labels]
    lines.append(f"{plural(len(labels), 'removable pair')}: " + ", ".join(f"{n} {k}" for k, n in summary.items()))
    if not labels and not board.is_cleared():
        lines.append(f"dead: no pair can be removed and {plural(board.tile_count, 'tile')} are left")
    return lines


def classified_report(board, rules, as_json: bool, budget: Budget, deadline: float | None) -> tuple[str, int]:
    """``moves --classify``: every removable move labelled within ``budget`` (its nodes for each
    verification, its seconds, from ``deadline``, for the whole), what it prints (JSON or
    :func:`label_lines`) and its exit code, 0 if some move is safe or no tile is left, 3 dead
    (every move fatal, or none), 4 undecided."""
    from llkgen.analysis.advice import FATAL, SAFE, UNDECIDED, classify_moves  # numpy: only this command pays

    labels = classify_moves(board, rules, Budget(nodes=budget.nodes), deadline=deadline)
    summary = {k: sum(1 for x in labels if x.label == k) for k in (SAFE, FATAL, UNDECIDED)}
    if as_json:
        text = json_dumps(move_labels_json(labels, summary, board.tile_count, budget))
    else:
        text = "\n".join(label_lines(board, labels, summary))
    if summary[SAFE] or board.is_cleared():
        return text, EXIT_OK
    return text, EXIT_UNKNOWN if summary[UNDECIDED] else EXIT_UNSOLVABLE


def reshuffled_text(done, seed: int) -> str:
    """``llkgen reshuffle``'s report of a certified board (``done``: a ``Reshuffled``)."""
    return (f"reshuffled {plural(done.board.tile_count, 'tile')} with seed {seed}: certified solvable in "
            f"{plural(len(done.witness), 'move')} ({plural(done.attempts, 'attempt')})")


def proof_lines(proof: dict | None) -> list[str]:
    """The parts of a proof a designer can look at on the board: the tiles it names."""
    if not proof:
        return []
    locked = proof.get("locked") or (proof.get("board") or {}).get("locked")
    return ["locked tiles: " + cells_text(locked)] if locked else []

def deadline_after(seconds: float | None) -> float | None:
    """The ``time.perf_counter()`` value a command given ``--budget SECONDS`` must be done by."""
    return None if seconds is None else time.perf_counter() + seconds

def run_deadline(seconds: float | None, scheduler: str | None) -> float | None:
    """:func:`deadline_after` for ``make`` and ``verify``, which refuse ``--budget`` with
    ``--scheduler`` (:class:`UsageError`): a task running on a Dask worker cannot be stopped,
    so no deadline could be kept."""
    if seconds is not None and scheduler is not None:
        raise UsageError("--budget: cannot be kept with --scheduler (a task running on a cluster cannot be "
                         "stopped): leave one of them out")
    return deadline_after(seconds)


def hint_lines(board, found) -> list[str]:
    """``llkgen hint`` as text: the move and why it is safe, or the verdict on the board, its
    reason and the tiles its proof names (as ``llkgen solve`` words it)."""
    if found.move is not None:
        return [f"hint: {move_text(board, found.move)}", found.reason]
    return [f"{found.verdict}: {found.reason}", *proof_lines(found.proof)]


def verdict_lines(verdict) -> list[str]:
    """``llkgen solve`` as text: the verdict and its reason, the locked tiles and what blocks
    each locked type (when the proof names them), then the witness move by move."""
    lines = [f"{verdict.status}: {verdict.reason}", *proof_lines(verdict.proof)]
    if verdict.proof and verdict.proof.get("locked"):
        for t in verdict.proof.get("bottlenecks", []):
            if t["blockers"]:
                lines.append(f"type {t['type']} is blocked by: " + cells_text(t["blockers"]))
    lines += [f"{i:3d}. {cell_text(m.a)} {cell_text(m.b)}" for i, m in enumerate(verdict.moves, 1)]
    return lines


def level_file(ref: str) -> str:
    """The file (or pack directory) a LEVEL argument reads, as :func:`load_level_ref` does."""
    return ref if "#" not in ref or os.path.lexists(ref) else ref.rpartition("#")[0]

def same_file(a: str | Path, b: str | Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False

def refuse_the_pack(out: Path, ref: str) -> None:
    """Raise :class:`OutputError` when ``out`` is the pack the level ``ref`` (``PACK#ID``) comes
    from: writing one level there would replace the whole pack. The level file itself may be."""
    source = level_file(ref)
    if source != ref and same_file(out, source):
        raise OutputError(f"{out}: is the pack {ref} comes from: expected another file (writing one "
                          "level there would replace the whole pack)")

def load_moves(path: Path) -> list:
    obj = read_json(path)
    if isinstance(obj, dict):
        for key in ("solution", "moves"):
            if key in obj:
                obj = obj[key]
                break
        else:
            raise LevelFormatError(f"{path}: expected a list of moves or an object with 'solution'")
    if not isinstance(obj, list):
        raise LevelFormatError(
            f"{path}: expected a list of moves [[r1, c1], [r2, c2]], found {type(obj).__name__}")
    return obj

def level_line(lv) -> str:
    """``make``'s line for a level: the difficulty with its standard error and the tier when
    the player ladder measured it, then the measures every level has."""
    m, players = lv.metrics, getattr(lv, "players", None)
    graded = ""
    if "difficulty" in m:
        se = f" ± {m['difficulty_se']:.1f}" if "difficulty_se" in m else ""
        graded = f"difficulty {m['difficulty']:>5.1f}{se}  "
    if isinstance(players, dict) and "tier" in players:
        graded += f"tier {players['tier']:<9}  "
    return (f"level {lv.index + 1:>3}  {graded}initial_moves {m['initial_moves']:>3}  "
            f"random_clear_rate {m['random_clear_rate']:.2f}  verify_nodes {m['verify_nodes']:>6}  "
            f"({plural(lv.attempts, 'attempt')})")

def made_lines(result, spec, part, took: float, description: str) -> list[str]:
    """``llkgen make``'s report as text: a line per level, then what was written where, how."""
    what = plural(len(result.levels), "certified level") + ("" if part is None else f" (shard {part})")
    resumed = f", {result.resumed} of them from the journal" if result.resumed else ""
    return [*(level_line(lv) for lv in result.levels),
            f"wrote {what} to {result.path}{resumed} (pack seed {spec.seed}, {spec.generator.strategy}, "
            f"{took:.1f} s with {description})"]


@contextmanager
def progress(total: int, name: str, quiet: bool, verb: str = "making") -> Iterator[Callable[[object], None]]:
    """``advance(level)``, called as each level is made (or graded: ``verb``): a rich progress bar
    on stderr when it is a terminal, one plain line per level otherwise (a CI log or a pipe),
    nothing if quiet."""
    if quiet:
        yield lambda lv: None
        return
    if not sys.stderr.isatty():
        done = 0

        def line(lv: object) -> None:
            nonlocal done
            done += 1
            print(f"{verb} {name}: {done}/{total} levels", file=sys.stderr, flush=True)

        yield line
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(f"{verb} {name}", total=total)
        yield lambda lv: bar.advance(task)

def tolerant_streams() -> None:
    """Let stdout and stderr show what UTF-8 cannot encode (a lone surrogate in a level id, an
    undecodable byte in a file name) as a backslash escape instead of failing."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")

class Stopped(BaseException):
    """Ctrl-C or SIGTERM, raised from the signal handler. Not a KeyboardInterrupt, which Typer
    would turn into a silent exit: this one reaches :func:`run_app`, which says why it stopped.
    Unwinding on the way ends worker processes and removes temporary files.

    A stop raised by the handler is *owed* a goodbye until :func:`run_app` says it. Python runs
    a handler wherever the main thread is, and some places drop what it raises: an at-fork
    hook, a weakref callback or a ``__del__`` (printed as "Exception ignored in: ...", see
    :func:`quiet_when_dropped`), a library's ``except Exception`` around an import (Python 3.11
    wraps an exception raised while a class is created in a ``RuntimeError``). A Ctrl-C that
    landed there was lost and the run went on (2 of 100 Ctrl-Cs in the first 0.8 s of
    ``make --jobs 2``, during its imports; 1 of 120 over the whole run, in a
    ``WeakValueDictionary``'s callback), or came out as a ``RuntimeError`` traceback (1 of 100,
    numpy's ``finfo``). So a stop still owed when it is dropped and freed sends its signal
    again (:func:`send_again`), and it lands anew, until it is said; and :func:`run_app` says
    goodbye for any exception raised from a stop."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum
        self.owed = False  # set by raise_stopped: one made by hand is nobody's to send again

    def __del__(self) -> None:
        if self.owed and not sys.is_finalizing():
            send_again(self.signum)

#: Exit code and message per signal (128 + the signal number, as shells report it).
STOP: dict[int, tuple[int, str]] = {signal.SIGINT: (130, "Interrupted.")}
if hasattr(signal, "SIGTERM"):
    STOP[signal.SIGTERM] = (143, "Terminated.")

def raise_stopped(signum: int, frame: object) -> None:
    """The CLI's handler of the signals of :data:`STOP`."""
    raise _owed(Stopped(signum))  # no local holds it: its traceback (this frame) must not

def _owed(stop: Stopped) -> Stopped:
    stop.owed = True
    return stop

def send_again(signum: int) -> None:
    """Have ``signum`` reach the main thread's handler again, as if it had just arrived
    (``_thread.interrupt_main``), from a new thread: so it lands after the code now running
    (which may be the place that dropped it) has moved on. A raw thread, not one of
    ``threading``'s: this runs wherever an object is freed, perhaps while the main thread holds
    one of ``threading``'s locks, and nothing at exit should wait for it."""
    _thread.start_new_thread(_thread.interrupt_main, (signal.Signals(signum),))

def quiet_when_dropped(hook: Callable[[Any], object]) -> Callable[[Any], object]:
    """``sys.unraisablehook`` that drops a :class:`Stopped` without a word (it is sent again
    when freed, see :class:`Stopped`), and passes anything else to ``hook``; ``hook`` itself
    if it is one already (a test runs the CLI thousands of times in one process)."""
    if getattr(hook, "quiet_when_dropped", False):
        return hook

    def unraisable(report: Any) -> None:
        if not isinstance(report.exc_value, Stopped):
            hook(report)

    unraisable.quiet_when_dropped = True  # type: ignore[attr-defined]
    return unraisable

def stop_in(e: BaseException) -> Stopped | KeyboardInterrupt | None:
    """The stop that ``e`` is, or was raised from or while handling (the first found), with
    every stop in that chain marked as said."""
    found: Stopped | KeyboardInterrupt | None = None
    seen: set[int] = set()
    chain: list[BaseException | None] = [e]
    while chain:
        x = chain.pop()
        if x is None or id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, (Stopped, KeyboardInterrupt)):
            found = found or x
            if isinstance(x, Stopped):
                x.owed = False
        chain += [x.__context__, x.__cause__]
    return found

def with_flags(text: str, arguments: Iterable[str]) -> str:
    """``text``, a library message that names the call's ``arguments`` by their names
    (:attr:`llkgen.errors.LlkgenError.arguments`), as the command line says it: each named as
    the flag that passed it, ``--count`` for ``count`` (every flag that passes an argument is
    the argument's name). The first occurrence of each, as a word of its own: a message names
    an argument once, and a file name such as ``resume.yaml`` is left alone."""
    for name in arguments:
        text = re.sub(rf"(?<![\w./-]){re.escape(name)}(?![\w./-])", f"--{name}", text, count=1)
    return text


def run_app(app: Callable[[], object]) -> None:
    """Run the command line ``app`` as the ``llkgen`` console script does: a library error
    becomes ``Error: ...`` on stderr and its exit code, never a traceback; Ctrl-C and SIGTERM
    end it with the message and code of :data:`STOP`.

    A signal during the command raises :class:`Stopped`, which unwinds it (workers stopped,
    temporary files removed) to the goodbye here; so does any exception raised from it or
    while handling it (a stop wrapped by the code it landed in, an error while cleaning up).
    Once the command has returned or said goodbye, what is left is the interpreter's exit (its
    threads joined, its exit functions run): a signal then ends the process at once
    (:func:`end_at_once`), so no wait at exit can outlast a Ctrl-C, and the process never dies
    of the signal itself, without a word (the last moments, when Python no longer runs
    handlers, are ``llkgen.entry``'s)."""
    tolerant_streams()
    sys.unraisablehook = quiet_when_dropped(sys.unraisablehook)
    for signum in STOP:
        signal.signal(signum, raise_stopped)
    try:
        app()
    except BaseException as e:
        stop = stop_in(e)
        if stop is not None:
            code, message = STOP[stop.signum if isinstance(stop, Stopped) else signal.SIGINT]
            for signum in STOP:  # a second Ctrl-C must not cut the goodbye short
                signal.signal(signum, signal.SIG_IGN)
            print(message, file=sys.stderr, flush=True)
            end_at_once(code)
            sys.exit(code)
        end_at_once()
        if not isinstance(e, LlkgenError):
            raise  # SystemExit: the command's own end; anything else, a bug to see
        print(f"Error: {printable(with_flags(str(e), e.arguments))}", file=sys.stderr, flush=True)
        sys.exit(e.exit_code)
    end_at_once()

def end_at_once(code: int | None = None) -> None:
    """From now on, Ctrl-C or SIGTERM ends this process at once (``os._exit``: no exit
    function runs, no thread is joined), with ``code`` and nothing printed once the run has
    said why it stopped, else with the message and code of :data:`STOP`. The run's outputs are
    complete or untouched by then (each is written atomically), so nothing is lost: what a
    signal skips is only waiting."""

    def end(signum: int, frame: object) -> None:
        if code is not None:
            os._exit(code)
        exit_code, message = STOP[signum]
        try:
            os.write(2, f"{message}\n".encode())
        except OSError:  # no stderr to say it on: the exit code still says it
            pass
        os._exit(exit_code)

    for signum in STOP:
        signal.signal(signum, end)
