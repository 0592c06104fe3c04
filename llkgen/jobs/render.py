"""``llkgen render`` and ``llkgen view``: SVG previews and the HTML viewer of a level file, a pack
or a pack directory, within a wall-clock deadline.

``render`` writes one file at a time (each whole or not at all, :func:`~llkgen.files.write_text_atomic`),
levels read as they are drawn, so memory does not grow with the pack. Before the first file it
states the size it expects to write (:func:`~llkgen.render.svg.estimate_svg_bytes`: a solution
strip of a 1,000-level pack runs to hundreds of megabytes). With a ``deadline`` no level starts
after it: the levels written stay, every file of them whole, and the report counts the levels
not rendered. ``view`` writes one page: with a deadline that passes before it is built, nothing
is written.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path

from llkgen.errors import EXIT_OK, EXIT_UNKNOWN, BudgetExhausted, budget_arguments, budget_text
from llkgen.execution.base import out_of_time
from llkgen.files import write_text_atomic
from llkgen.formats.level import Level, Pack
from llkgen.formats.load import iter_levels, load_pack_page, read_pack_index
from llkgen.render import build_viewer_html
from llkgen.render.svg import estimate_svg_bytes, iter_write_svgs

#: ``render`` says how much it will write from this many bytes up (10 MiB: about 35 levels of
#: 10x16 with their solutions); below it the note would be noise in every small run.
STATE_SIZE_FROM = 10 << 20


@dataclass(frozen=True)
class SizeEstimate:
    """What ``render`` expects to write, stated before it writes: ``levels`` levels, about
    ``bytes`` bytes of SVG. ``from_first`` when it is the first level's estimate times the level
    count (a pack directory, streamed: its other levels are not read ahead)."""

    levels: int
    bytes: int
    from_first: bool

    @property
    def worth_stating(self) -> bool:
        """Whether it is big enough to say before writing (:data:`STATE_SIZE_FROM` bytes)."""
        return self.bytes >= STATE_SIZE_FROM

    def text(self, out: str | os.PathLike) -> str:
        how = " (from its first level)" if self.from_first else ""
        return f"rendering {self.levels} levels: about {_size(self.bytes)} of SVG to {out}{how}"


@dataclass
class RenderReport:
    """What ``render`` wrote: the files, whole; the levels rendered and, when the deadline
    stopped it, how many were not."""

    files: list[Path] = field(default_factory=list)
    levels: int = 0
    bytes: int = 0
    not_rendered: int = 0
    budget: float | None = None

    @property
    def budget_ran_out(self) -> bool:
        return self.not_rendered != 0

    @property
    def exit_code(self) -> int:
        return EXIT_UNKNOWN if self.budget_ran_out else EXIT_OK

    def budget_line(self) -> str:
        """The message of a deadline that stopped the run."""
        return (f"{budget_text(self.budget)} ran out after {self.levels} levels: {self.not_rendered} not rendered "
                "(every file written is whole)")


def _size(n: int) -> str:
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"


def _levels_and_estimate(source: str | os.PathLike, solution: bool) -> tuple[Iterator[tuple[str, Level]], SizeEstimate]:
    """The levels of ``source``, one at a time, and the size their SVG files should come to."""
    if os.path.isdir(source):
        count = read_pack_index(source).count  # a bad index fails before anything is made
        levels = iter_levels(source)
        first = next(levels, None)
        if first is None:
            return iter(()), SizeEstimate(0, 0, False)
        return chain([first], levels), SizeEstimate(count, count * estimate_svg_bytes(first[1], solution=solution),
                                                    count > 1)
    loaded = list(iter_levels(source))
    return iter(loaded), SizeEstimate(len(loaded), sum(estimate_svg_bytes(lv, solution=solution) for _, lv in loaded),
                                      False)


def render_levels(source: str | os.PathLike, out: str | Path, *, solution: bool = False,
                  deadline: float | None = None, budget: float | None = None,
                  on_estimate: Callable[[SizeEstimate], None] | None = None,
                  on_file: Callable[[Path], None] | None = None) -> RenderReport:
    """Write the SVG previews of every level of ``source`` into ``out`` (see the module
    docstring); ``on_estimate`` sees the expected size once ``out`` is made, before any file is
    written (:attr:`SizeEstimate.worth_stating` says whether to show it), ``on_file``
    each file as it is written. ``budget`` is the number of seconds ``deadline`` came from, for
    messages. Raises :class:`~llkgen.errors.LlkgenError` for a source that cannot be read."""
    levels, estimate = _levels_and_estimate(source, solution)
    report = RenderReport(budget=budget)
    started: list[tuple[str, Level]] = []

    def until_deadline() -> Iterator[tuple[str, Level]]:
        for item in levels:
            if out_of_time(deadline):
                report.not_rendered = max(1, estimate.levels - len(started))
                return
            started.append(item)
            yield item

    written = iter_write_svgs(until_deadline(), out, solution=solution)  # out is made and checked here
    if on_estimate is not None:
        on_estimate(estimate)
    for path in written:
        report.files.append(path)
        report.bytes += path.stat().st_size
        report.levels = len(started)
        if on_file is not None:
            on_file(path)
    report.levels = len(started)
    return report


def write_view(pack: str | os.PathLike, out: str | os.PathLike, start: int, limit: int, *,
               deadline: float | None = None, budget: float | None = None,
               check_start: Callable[[int], None] | None = None) -> tuple[Path, Pack, int]:
    """The viewer page of levels ``start`` to ``start + limit - 1`` of ``pack``, written
    atomically to ``out``: the path, the page's levels and the pack's level count.
    ``check_start(total)`` may refuse ``start`` once the count is known. With a ``deadline``
    that passes before the page is written, raises :class:`~llkgen.errors.BudgetExhausted` and
    writes nothing (the page is bounded by ``limit`` levels, so building it is the last step
    that can run long)."""
    page, total = load_pack_page(pack, start, limit)
    if check_start is not None:
        check_start(total)
    if out_of_time(deadline):
        raise BudgetExhausted(f"{budget_text(budget)} ran out while reading {pack}: nothing written",
                              arguments=budget_arguments(budget))
    html = build_viewer_html(page, first=start, total=total)
    if out_of_time(deadline):
        raise BudgetExhausted(f"{budget_text(budget)} ran out while building the page: nothing written",
                              arguments=budget_arguments(budget))
    return write_text_atomic(out, html), page, total
