"""SVG previews of levels, optionally with their certified solution drawn step by step.

The output is a pure function of the level: integer coordinates only, fixed element ids, no
timestamps, so rendering the same level twice gives byte-identical files that diff cleanly
in version control.

With ``solution=True`` the stored ``solution`` is replayed through :func:`llkgen.game.referee.replay`,
one move at a time, so every drawn path is the referee's path (fewest turns, then shortest,
then smallest corners) and a bad stored solution shows up as a red note at the failing step
instead of a plausible-looking picture.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from llkgen.files import prepare_dir, write_text_atomic
from llkgen.formats.level import Level
from llkgen.game.board import WALL, Board, Cell, Gravity, Rules
from llkgen.game.gravity import compact, flat_lines
from llkgen.game.referee import replay
from llkgen.render import palette as pal
from llkgen.text import xml_text

CELL = 40  # main board cell size in px; even, so cell centres are integers
MARGIN = 16
AXIS = 18  # band for row / column numbers
FONT = "system-ui,-apple-system,'Segoe UI',Helvetica,Arial,sans-serif"
GRAVITY_ARROWS = {"none": "", "down": " \u2193", "up": " \u2191", "left": " \u2190", "right": " \u2192"}


# -- small helpers --------------------------------------------------------------------------------
def _t(s: object) -> str:
    """Text or attribute content: markup escaped, and characters XML cannot carry (e.g. a
    control character or a lone surrogate in a level id) shown as escapes."""
    return escape(xml_text(str(s)), quote=True)


def _text_width(s: str, size: int) -> int:
    """Generous width estimate for sans-serif text (no font metrics available offline)."""
    return int(len(s) * size * 0.6) + 1


def _pct(x: float) -> str:
    if 0 < x < 0.01:
        return f"{x * 100:.1f}%"
    return f"{x * 100:.0f}%"


def format_metrics(metrics: object) -> str:
    """One line ``initial moves 7 · random clear 35% · verify nodes 1,204``; missing
    values print as a dash."""
    m = metrics if isinstance(metrics, dict) else {}

    def get(key: str, fmt) -> str:
        v = m.get(key)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return "\u2013"
        return fmt(v)

    return " \u00b7 ".join(
        [
            "initial moves " + get("initial_moves", lambda v: f"{int(v)}"),
            "random clear " + get("random_clear_rate", _pct),
            "verify nodes " + get("verify_nodes", lambda v: f"{int(v):,}"),
        ]
    )


def describe_rules(board: Board, rules: Rules) -> str:
    kinds = len(board.types())
    return (
        f"{board.rows}\u00d7{board.cols} \u00b7 {board.tile_count} tiles \u00b7 {kinds} types \u00b7 "
        f"border {'on' if rules.border else 'off'} \u00b7 gravity {rules.gravity}{GRAVITY_ARROWS[rules.gravity]}"
    )


def _certificate_line(extra: dict) -> str | None:
    cert = extra.get("certificate")
    if not isinstance(cert, dict) or "verdict" not in cert:
        return None
    line = f"certificate: {cert['verdict']}"
    if cert.get("method"):
        line += f" ({cert['method']})"
    return line


def _parse_moves(solution: object) -> list[tuple[Cell, Cell]] | None:
    """The stored solution as cell pairs, or ``None`` when absent or not shaped like one
    (shape problems are the loader's business; the preview just says "no solution")."""
    if not isinstance(solution, list):
        return None
    out = []
    for mv in solution:
        try:
            (r1, c1), (r2, c2) = mv
        except (TypeError, ValueError):
            return None
        if not all(type(v) is int for v in (r1, c1, r2, c2)):
            return None
        out.append(((r1, c1), (r2, c2)))
    return out


def _slide_ids(ids: list[int], values: list[int], rows: int, cols: int, gravity: str) -> None:
    """Apply gravity to ``values`` and move ``ids`` (a per-tile identity grid) the same way,
    so a tile can be followed from the initial board to the step that removes it. The
    caller checks the result against the referee's board."""
    if gravity == Gravity.NONE:
        return
    for i, j in compact(values, flat_lines(gravity, rows, cols)):
        ids[j], ids[i] = ids[i], 0


@dataclass
class _Step:
    a: Cell
    b: Cell
    kind: int
    path: list[Cell]
    before: Board


@dataclass
class _Walk:
    steps: list[_Step]
    removed_at: dict[Cell, int]  # initial cell -> 1-based step number
    final: Board
    error: str | None


def _walk_solution(level: Level, moves: list[tuple[Cell, Cell]]) -> _Walk:
    """Replay ``moves`` through the referee one at a time, tracking tile identities."""
    board, rules = level.board, level.rules
    rows, cols = board.rows, board.cols
    ids = [i + 1 if v > 0 else 0 for i, v in enumerate(board.cells)]
    steps: list[_Step] = []
    removed: dict[Cell, int] = {}
    for n, (a, b) in enumerate(moves, start=1):
        res = replay(board, rules, [(a, b)])
        if not res.ok:
            return _Walk(steps, removed, board, f"step {n} refused by the referee: {res.reason}")
        kind = board[a]
        for p in (a, b):
            tile_id = ids[p[0] * cols + p[1]]
            removed[divmod(tile_id - 1, cols)] = n
            ids[p[0] * cols + p[1]] = 0
        values = list(board.cells)
        values[a[0] * cols + a[1]] = values[b[0] * cols + b[1]] = 0
        _slide_ids(ids, values, rows, cols, rules.gravity)
        if tuple(values) != res.final.cells:  # pragma: no cover - would be a renderer bug
            raise AssertionError("tile tracking disagrees with the referee's gravity")
        steps.append(_Step(a, b, kind, res.paths[0], board))
        board = res.final
    return _Walk(steps, removed, board, None)


class _Canvas:
    def __init__(self) -> None:
        self.parts: list[str] = []

    def add(self, s: str) -> None:
        self.parts.append(s)

    def text(self, x: int, y: int, s: str, *, size: int = 12, fill: str = pal.INK,
             weight: str | None = None, anchor: str | None = None, cls: str | None = None) -> None:
        attrs = f'x="{x}" y="{y}" font-size="{size}" fill="{fill}"'
        if weight:
            attrs += f' font-weight="{weight}"'
        if anchor:
            attrs += f' text-anchor="{anchor}"'
        if cls:
            attrs += f' class="{cls}"'
        self.add(f"<text {attrs}>{_t(s)}</text>")


def _draw_board(cv: _Canvas, board: Board, rules: Rules, x0: int, y0: int, cell: int, *,
                axis: bool, badges: dict[Cell, int] | None = None, labels: bool = True,
                tile_class: str = "tile", highlight: Sequence[Cell] = (),
                path: Sequence[Cell] | None = None) -> tuple[int, int]:
    """Draw ``board`` with its top-left (ring included) at ``x0, y0``; returns (width, height)."""
    ring = 1 if rules.border else 0
    rows, cols = board.rows, board.cols
    w, h = (cols + 2 * ring) * cell, (rows + 2 * ring) * cell
    half = cell // 2

    def cx(c: int) -> int:
        return x0 + (c + ring) * cell

    def cy(r: int) -> int:
        return y0 + (r + ring) * cell

    if ring:
        cv.add(f'<rect class="ring" x="{x0}" y="{y0}" width="{w}" height="{h}" fill="{pal.RING_FILL}" '
               f'stroke="{pal.RING_STROKE}" stroke-width="1" stroke-dasharray="4 3"/>')
    cv.add(f'<rect x="{cx(0)}" y="{cy(0)}" width="{cols * cell}" height="{rows * cell}" '
           f'fill="{pal.EMPTY_FILL}" stroke="{pal.RING_STROKE}" stroke-width="1"/>')
    if axis:
        fs = 10 if cell >= 20 else 8
        for c in range(cols):
            cv.text(cx(c) + half, y0 - 5, str(c), size=fs, fill=pal.MUTED, anchor="middle")
        for r in range(rows):
            cv.text(x0 - 5, cy(r) + half + fs // 3, str(r), size=fs, fill=pal.MUTED, anchor="end")
    rad = max(2, cell // 7)
    inset = 1 if cell < 20 else 2
    font = int(cell * 0.42)
    for r in range(rows):
        for c in range(cols):
            v = board.cells[r * cols + c]
            x, y = cx(c), cy(r)
            if v == 0:
                cv.add(f'<rect class="empty" x="{x + 1}" y="{y + 1}" width="{cell - 2}" height="{cell - 2}" '
                       f'fill="{pal.EMPTY_FILL}" stroke="{pal.EMPTY_STROKE}" stroke-width="1"/>')
            elif v == WALL:
                cv.add(f'<rect class="wall" data-r="{r}" data-c="{c}" x="{x}" y="{y}" width="{cell}" '
                       f'height="{cell}" fill="url(#llk-wall)"/>')
            else:
                hl = (r, c) in highlight
                stroke = pal.HIGHLIGHT if hl else "#000000"
                sw = 3 if hl else 1
                op = "" if hl else ' stroke-opacity="0.25"'
                cv.add(f'<g class="{tile_class}" data-r="{r}" data-c="{c}" data-type="{v}">'
                       f'<rect x="{x + inset}" y="{y + inset}" width="{cell - 2 * inset}" '
                       f'height="{cell - 2 * inset}" rx="{rad}" fill="{pal.tile_colour(v)}" '
                       f'stroke="{stroke}" stroke-width="{sw}"{op}/>')
                if labels:
                    cv.add(f'<text x="{x + half}" y="{y + half + font * 7 // 20}" font-size="{font}" '
                           f'font-weight="700" text-anchor="middle" fill="{pal.text_colour(v)}">'
                           f"{_t(pal.tile_label(v))}</text>")
                cv.add("</g>")
    # Badges go on top of all tiles: each sits on its tile's corner, clear of a centred label.
    for (r, c), step in sorted((badges or {}).items()):
        n = str(step)
        br = 7 if len(n) < 3 else 9
        bx, by = cx(c) + cell - 5, cy(r) + 5
        cv.add(f'<g class="badge" data-r="{r}" data-c="{c}"><circle cx="{bx}" cy="{by}" r="{br}" '
               f'fill="{pal.PAPER}" stroke="{pal.INK}" stroke-width="1"/><text x="{bx}" y="{by + 3}" '
               f'font-size="8" font-weight="700" text-anchor="middle" fill="{pal.INK}">{n}</text></g>')
    if path:
        xy = [[cx(c) + half, cy(r) + half] for r, c in path]
        # Start and end at the tiles' edges rather than their centres, so labels stay readable.
        cut = cell * 3 // 10
        for i, j in ((0, 1), (len(xy) - 1, len(xy) - 2)):
            for k in (0, 1):
                xy[i][k] += cut * ((xy[j][k] > xy[i][k]) - (xy[j][k] < xy[i][k]))
        pts = " ".join(f"{x},{y}" for x, y in xy)
        lw = max(2, cell // 8)
        cv.add(f'<g class="path"><polyline points="{pts}" fill="none" stroke="{pal.PATH_CASING}" '
               f'stroke-width="{lw + 3}" stroke-linejoin="round" stroke-linecap="round"/>'
               f'<polyline points="{pts}" fill="none" stroke="{pal.HIGHLIGHT}" stroke-width="{lw}" '
               f'stroke-linejoin="round" stroke-linecap="round"/></g>')
    return w, h


def _frame_cell(board: Board) -> int:
    side = max(board.rows, board.cols) + 2
    return max(8, min(20, (220 // side) // 2 * 2))


def render_level_svg(level: Level, *, solution: bool = False) -> str:
    """An SVG picture of ``level``: header (id, rules, metrics), the board with its outside
    ring when ``border`` is on, walls hatched, each tile filled by type and labelled with its
    type number, plus row and column numbers.

    With ``solution=True`` each tile also carries the number of the step that removes it, and
    a strip of numbered frames below shows the board before every step of the stored
    ``solution`` with the pair outlined and the referee's path drawn. Deterministic: the same
    level always gives the same string."""
    board, rules = level.board, level.rules
    extra = level.extra if isinstance(level.extra, dict) else {}
    title = level.id or "level"
    lines = [(title, 18, "700"), (describe_rules(board, rules), 12, None),
             (format_metrics(extra.get("metrics")), 12, None)]
    cert = _certificate_line(extra)
    if cert:
        lines.append((cert, 12, None))

    walk: _Walk | None = None
    note: str | None = None
    if solution:
        moves = _parse_moves(extra.get("solution"))
        if moves is None:
            note = "no stored solution"
        else:
            walk = _walk_solution(level, moves)

    ring = 1 if rules.border else 0
    header_h = 14 + 22 + 18 * (len(lines) - 1)
    bx, by = MARGIN + AXIS, header_h + AXIS + 4
    bw, bh = (board.cols + 2 * ring) * CELL, (board.rows + 2 * ring) * CELL
    width = max(bx + bw + MARGIN, max(MARGIN * 2 + _text_width(s, z) for s, z, _ in lines), 240)
    y_after = by + bh + 8
    legend = ["tile: colour + type number", "wall: hatched"]
    if ring:
        legend.append("dashed ring: path may pass outside the board")
    if walk is not None:
        legend.append("badge: step that removes the tile")
    legend_s = " \u00b7 ".join(legend)
    width = max(width, MARGIN * 2 + _text_width(legend_s, 10))

    body = _Canvas()
    body.add('<g class="board">')
    _draw_board(body, board, rules, bx, by, CELL, axis=True,
                badges=walk.removed_at if walk else None)
    body.add("</g>")
    body.text(MARGIN, y_after + 10, legend_s, size=10, fill=pal.MUTED, cls="legend")
    y = y_after + 22

    if note:
        body.text(MARGIN, y + 14, note, size=12, fill=pal.MUTED, cls="note")
        y += 24
    if walk is not None:
        y, need = _draw_strip(body, level, walk, y + 8, width)
        width = max(width, need)

    height = y + MARGIN
    out = _Canvas()
    out.add(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="{FONT}">')
    out.add(f"<title>{_t('llkgen level ' + title)}</title>")
    out.add('<defs><pattern id="llk-wall" width="6" height="6" patternUnits="userSpaceOnUse" '
            'patternTransform="rotate(45)">'
            f'<rect width="6" height="6" fill="{pal.WALL_FILL}"/>'
            f'<rect width="2" height="6" fill="{pal.WALL_HATCH}"/></pattern></defs>')
    out.add(f'<rect width="{width}" height="{height}" fill="{pal.PAPER}"/>')
    ty = 14
    for i, (s, size, weight) in enumerate(lines):
        ty += size + (4 if i else 0)
        out.text(MARGIN, ty, s, size=size, weight=weight, fill=pal.INK if i == 0 else pal.MUTED,
                 cls="title" if i == 0 else "header")
    out.parts.extend(body.parts)
    out.add("</svg>")
    return "\n".join(out.parts) + "\n"


def _draw_strip(cv: _Canvas, level: Level, walk: _Walk, y: int, width: int) -> tuple[int, int]:
    """Numbered frames, one per solution step, then the final board; returns the y below the
    strip and the width it needs.

    Every frame redraws the whole board, so the frames drawn are capped at
    :data:`MAX_FRAME_CELLS` board cells in all: a 64 x 64 level has 2,048 steps, and drawing
    each would take over a gigabyte. Steps past the cap are listed as text (the badges on the
    main board number every step too), and the strip title says so."""
    board, rules = level.board, level.rules
    cell = _frame_cell(board)
    ring = 1 if rules.border else 0
    fw, fh = (board.cols + 2 * ring) * cell, (board.rows + 2 * ring) * cell
    frame_w = max(fw, 96)
    per_row = max(1, (max(width, 720) - 2 * MARGIN + _GAP) // (frame_w + _GAP))
    n = len(walk.steps)
    drawn = min(n, max(1, MAX_FRAME_CELLS // (board.rows * board.cols) - 1))  # one for the end
    title = f"Solution: {n} steps \u00b7 each frame is the board before the removal, with the referee's path"
    if rules.gravity != Gravity.NONE:
        title += f" \u00b7 tiles then slide {rules.gravity}{GRAVITY_ARROWS[rules.gravity]}"
    if drawn < n:
        title += f" \u00b7 steps {drawn + 1}\u2013{n} listed, not drawn"
    cv.text(MARGIN, y + 12, title, size=12, weight="700", cls="strip-title")
    need = MARGIN * 2 + _text_width(title, 12)
    y += 24
    frames: list[_Frame] = [
        (f"{k}. type {st.kind}", _move_text(st), st.before, st, pal.INK)
        for k, st in enumerate(walk.steps[:drawn], start=1)
    ]
    if walk.error:
        end: _Frame = ("refused", walk.error, walk.final, None, "#C00000")
    elif walk.final.is_cleared():
        end = ("cleared", f"after {n} steps", walk.final, None, "#006B3C")
    else:
        end = ("not cleared", f"{walk.final.tile_count} tiles left", walk.final, None, "#C00000")
    if drawn == n:
        frames.append(end)
    y, need = _draw_frames(cv, rules, frames, cell, frame_w, fh, per_row, y, need)
    if drawn < n:
        y = _list_steps(cv, walk.steps, drawn, max(width, 720), y)
        y, need = _draw_frames(cv, rules, [end], cell, frame_w, fh, per_row, y, need)
    return y, need


#: Board cells drawn in a solution strip at most (about 150 bytes each): keeps the SVG of any
#: level within a few megabytes. Every shipped spec's levels fit whole (10 x 16: 81 frames).
MAX_FRAME_CELLS = 20_000
_GAP = 16  # between frames
_CAPTION = 30  # two caption lines above each frame
_LIST_LINE = 14  # line height of the listed steps

_Frame = tuple[str, str, Board, "_Step | None", str]  # head, sub, board, step, caption colour


#: Bytes of SVG per board cell, measured on the shipped specs' levels (6x8 to 10x16,
#: ``render_level_svg``): the preview 305-335, each frame of a solution strip 155-220. The
#: estimate takes the high ends: it is to warn, and a warning that comes out low misleads.
PREVIEW_BYTES_PER_CELL = 340
FRAME_BYTES_PER_CELL = 220
#: A step past :data:`MAX_FRAME_CELLS`, listed as a line of text.
LISTED_STEP_BYTES = 120


def estimate_svg_bytes(level: Level, *, solution: bool = False) -> int:
    """About how many bytes :func:`iter_write_svgs` writes for ``level``: its preview and, with
    ``solution``, its solution strip (a frame per step of the stored solution, as many as
    :data:`MAX_FRAME_CELLS` allows, the rest listed). On the shipped specs' levels it came out
    1-41% above the real size, never below."""
    cells = level.board.rows * level.board.cols
    preview = 2000 + PREVIEW_BYTES_PER_CELL * cells
    if not solution:
        return preview
    extra = level.extra if isinstance(level.extra, dict) else {}
    steps = len(_parse_moves(extra.get("solution")) or [])
    drawn = min(steps, max(1, MAX_FRAME_CELLS // cells - 1))
    return 2 * preview + FRAME_BYTES_PER_CELL * cells * (drawn + 1) + LISTED_STEP_BYTES * (steps - drawn)


def _move_text(st: _Step) -> str:
    return f"({st.a[0]},{st.a[1]})\u2013({st.b[0]},{st.b[1]})"


def _draw_frames(cv: _Canvas, rules: Rules, frames: list[_Frame], cell: int, frame_w: int,
                 fh: int, per_row: int, y: int, need: int) -> tuple[int, int]:
    row_h = _CAPTION + fh + _GAP
    for i, (head, sub, fb, st, colour) in enumerate(frames):
        col, row = i % per_row, i // per_row
        fx = MARGIN + col * (frame_w + _GAP)
        fy = y + row * row_h
        cv.add(f'<g class="step" data-step="{head.split(".")[0]}">' if st else '<g class="step-end">')
        cv.text(fx, fy + 11, head, size=11, weight="700", fill=colour)
        cv.text(fx, fy + 24, sub, size=10, fill=pal.MUTED if st else colour)
        _draw_board(cv, fb, rules, fx, fy + _CAPTION, cell, axis=False, labels=cell >= 14,
                    tile_class="mini", highlight=(st.a, st.b) if st else (),
                    path=st.path if st else None)
        cv.add("</g>")
        need = max(need, fx + max(frame_w, _text_width(sub, 10)) + MARGIN)
    return y + (len(frames) + per_row - 1) // per_row * row_h, need


def _list_steps(cv: _Canvas, steps: list[_Step], start: int, width: int, y: int) -> int:
    """Steps ``start + 1 ...`` as text in columns, read down each column; returns the y below."""
    lines = [f"{start + i + 1}. type {st.kind}: {_move_text(st)}" for i, st in enumerate(steps[start:])]
    column_w = max(_text_width(s, 10) for s in lines) + _GAP
    columns = max(1, (width - 2 * MARGIN) // column_w)
    per_column = (len(lines) + columns - 1) // columns
    cv.add('<g class="step-list">')
    for i, line in enumerate(lines):
        col, row = divmod(i, per_column)
        cv.text(MARGIN + col * column_w, y + 12 + row * _LIST_LINE, line, size=10, fill=pal.INK)
    cv.add("</g>")
    return y + per_column * _LIST_LINE + _GAP


# -- files ----------------------------------------------------------------------------------------
def slug(text: str) -> str:
    """A filename-safe version of ``text``: letters, digits, ``.``, ``_`` and ``-`` only, at
    most :data:`MAX_STEM` characters. A longer one is cut and given a hash of the whole text, so
    different long ids still get different names."""
    s = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.") or "level"
    if len(s) > MAX_STEM:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:10]
        s = s[: MAX_STEM - 11].rstrip("-.") + "-" + digest
    return s


#: Longest file-name stem: leaves room for a ``-N`` suffix and ``.solution.svg`` well within
#: the 255 bytes every common file system allows.
MAX_STEM = 100
PLAIN_SUFFIX, SOLUTION_SUFFIX = ".svg", ".solution.svg"


def svg_filenames(levels: Iterable[tuple[str, Level]]) -> list[str]:
    """Deterministic file-name stems, one per level: the level id (else the label's ``#``
    suffix or file stem, else ``level-<n>``), made filename-safe by :func:`slug`.

    A level writes ``stem + ".svg"`` and, with a solution, ``stem + ".solution.svg"``. Each
    stem claims both names, and a clash with any name already claimed (ignoring case, for
    case-insensitive file systems) gets ``-2``, ``-3``...: so the ids ``a`` and ``a.solution``
    can never write the same file, with or without solutions."""
    return [stem for stem, _ in _stemmed(levels)]


def _stemmed(levels: Iterable[tuple[str, Level]]) -> Iterator[tuple[str, Level]]:
    """``(stem, level)`` as :func:`svg_filenames` names them, one level at a time: a stem
    depends only on the levels before it."""
    claimed: set[str] = set()
    for i, (label, level) in enumerate(levels):
        if level.id:
            base = level.id
        elif "#" in label:
            base = label.rsplit("#", 1)[1]
            base = f"level-{int(base) + 1:03d}" if base.isdigit() else base
        else:
            base = Path(label).stem if label else f"level-{i + 1:03d}"
        base = slug(base)
        stem, k = base, 2
        while {(stem + s).lower() for s in (PLAIN_SUFFIX, SOLUTION_SUFFIX)} & claimed:
            stem, k = f"{base}-{k}", k + 1
        claimed |= {(stem + s).lower() for s in (PLAIN_SUFFIX, SOLUTION_SUFFIX)}
        yield stem, level


def write_svgs(levels: Iterable[tuple[str, Level]], out_dir: str | Path, *,
               solution: bool = False) -> list[Path]:
    """Write one SVG preview per level into ``out_dir`` (created if needed), and with
    ``solution=True`` also its step-by-step solution preview, named by :func:`svg_filenames`.
    Returns the paths written: no two are the same file."""
    return list(iter_write_svgs(levels, out_dir, solution=solution))


def iter_write_svgs(levels: Iterable[tuple[str, Level]], out_dir: str | Path, *,
                    solution: bool = False) -> Iterator[Path]:
    """:func:`write_svgs` one level at a time, yielding each path as it is written, so a
    stream of levels (a pack directory) is rendered without holding it. ``out_dir`` is
    created and checked at the call, before any level is read."""
    out = prepare_dir(out_dir)

    def written() -> Iterator[Path]:
        for stem, level in _stemmed(levels):
            yield write_text_atomic(out / (stem + PLAIN_SUFFIX), render_level_svg(level))
            if solution:
                yield write_text_atomic(out / (stem + SOLUTION_SUFFIX), render_level_svg(level, solution=True))

    return written()
