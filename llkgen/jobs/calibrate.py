"""``llkgen calibrate``: play data and the pack it was played on, fitted into a
``llkgen.calibration/1`` file (:mod:`llkgen.analysis.calibration` does the fit).

The plays are CSV (a header row) or JSON Lines (one object a line; told apart by the first
character that is not blank: ``{`` is JSON Lines), in either of two shapes, which may be mixed:

* one row per level: ``level``, ``attempts``, ``clears``, and optionally ``seconds`` and
  ``hints`` (totals, checked to be numbers >= 0 and recorded, not fitted: they are what the
  players did, not what the level is);
* one row per attempt: ``level`` and ``cleared`` (``true``/``false``, ``1``/``0``).

Rows of one level are added up, whichever of its labels they use. ``level`` is the label
``llkgen verify`` prints (``PACK#ID``), or just the ``ID`` after the ``#``: the pack's path in
the label need not match the path given here, but its file or directory name must (a label
naming another pack is refused). Counts are at most :data:`MAX_COUNT`, each and in all; the
file may start with a UTF-8 byte order mark (as Excel writes CSV). Levels with fewer than
:data:`~llkgen.analysis.calibration.MIN_ATTEMPTS` attempts are left out and named in the file;
every other level must be in the pack and carry the ladder's measurement (a pack made with
grading), or the fit is refused, naming the levels.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from llkgen.analysis.calibration import MIN_ATTEMPTS, MIN_LEVELS, Calibration, CalibrationError, Scores, fit
from llkgen.analysis.calibration_models import PlayData, features_of
from llkgen.files import read_bounded, write_text_atomic
from llkgen.formats.level import MAX_FILE_BYTES, Level, parse_json_line, read_json
from llkgen.formats.load import load_levels, load_pack

#: At most this many labels are named in one message.
NAMED = 5
#: At most this many characters of a value are shown in one message.
SHOWN = 60

#: The largest count of attempts or clears read, in one row and added up over the file: 2^53,
#: the last integer a float (JSON's number, numpy's fit) holds exactly; the fit sums counts in
#: int64, which this keeps far from overflowing.
MAX_COUNT = 2 ** 53


@dataclass
class Tally:
    """One level's plays, added up over its rows."""

    attempts: int = 0
    clears: int = 0
    seconds: float = 0.0
    hints: float = 0.0
    rows: list[int] = field(default_factory=list)


def _names(labels: list[str]) -> str:
    shown = ", ".join(labels[:NAMED])
    return shown + (f" and {len(labels) - NAMED} more" if len(labels) > NAMED else "")


def _shown(value: object) -> str:
    """``repr(value)``, cut to :data:`SHOWN` characters: a cell may be as long as the file."""
    text = repr(value)
    return text if len(text) <= SHOWN else text[:SHOWN] + "..."


def _count(value: object, where: str, key: str) -> int:
    if isinstance(value, str):
        try:
            value = int(value.strip())
        except ValueError:
            pass
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_COUNT:
        raise CalibrationError(f"{where}: {key}: expected an integer from 0 to 2^53, found {_shown(value)}")
    return value


def _amount(value: object, where: str, key: str) -> float:
    if value is None or value == "":
        return 0.0
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            pass
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value < 0:
        raise CalibrationError(f"{where}: {key}: expected a number >= 0, found {_shown(value)}")
    return float(value)


_TRUE = {"true", "1", "yes"}
_FALSE = {"false", "0", "no"}


def _cleared(value: object, where: str) -> bool:
    text = str(value).strip().lower() if isinstance(value, (str, int)) and not isinstance(value, bool) else value
    if value is True or text in _TRUE:
        return True
    if value is False or text in _FALSE:
        return False
    raise CalibrationError(f"{where}: cleared: expected true or false (or 1 or 0), found {_shown(value)}")


def _rows(path: str) -> list[tuple[str, dict]]:
    """``(where, row)`` for every row of the plays file, CSV or JSON Lines."""
    data = read_bounded(path, MAX_FILE_BYTES, "a plays file", CalibrationError)
    text = data.decode("utf-8-sig", errors="replace")
    if text.lstrip()[:1] == "{":
        out = []
        for n, line in enumerate(text.splitlines(), 1):
            if line.strip():
                obj = parse_json_line(line, f"{path} line {n}")
                if not isinstance(obj, dict):
                    raise CalibrationError(f"{path} line {n}: expected an object, found {type(obj).__name__}")
                out.append((f"{path} line {n}", obj))
        return out
    reader = csv.DictReader(io.StringIO(text))
    if reader.fieldnames is None or "level" not in reader.fieldnames:
        raise CalibrationError(f"{path}: expected a CSV header naming level and either attempts and clears "
                               f"or cleared (or JSON Lines), found {reader.fieldnames!r}")
    try:
        return [(f"{path} line {reader.line_num}", dict(row)) for row in reader]
    except csv.Error as e:
        # DictReader's line_num is the last good row's; its reader's counts the line that failed.
        raise CalibrationError(f"{path} line {reader.reader.line_num}: expected a CSV row, found one that is not "
                               f"({e})") from None


def read_plays(path: str) -> dict[str, Tally]:
    """The plays in ``path``, added up per level label (module docstring). Raises
    :class:`CalibrationError` naming the row and key of the first bad value."""
    tallies: dict[str, Tally] = {}
    rows = _rows(path)
    if not rows:
        raise CalibrationError(f"{path}: expected rows of plays, found none")
    total = 0
    for i, (where, row) in enumerate(rows):
        label = row.get("level")
        if not isinstance(label, str) or not label.strip():
            raise CalibrationError(f"{where}: level: expected a level label (PACK#ID or ID), found {_shown(label)}")
        t = tallies.setdefault(label.strip(), Tally())
        t.rows.append(i)
        before = t.attempts
        if row.get("cleared") not in (None, ""):
            if row.get("attempts") not in (None, "") or row.get("clears") not in (None, ""):
                raise CalibrationError(f"{where}: expected either cleared (one attempt) or attempts and clears "
                                       "(a level's total), found both")
            t.attempts += 1
            t.clears += _cleared(row["cleared"], where)
        else:
            if row.get("attempts") in (None, "") or row.get("clears") in (None, ""):
                raise CalibrationError(f"{where}: expected attempts and clears, or cleared, found neither")
            a, c = _count(row["attempts"], where, "attempts"), _count(row["clears"], where, "clears")
            if c > a:
                raise CalibrationError(f"{where}: clears: expected at most attempts ({a}), found {c}")
            t.attempts += a
            t.clears += c
        total += t.attempts - before
        if total > MAX_COUNT:
            raise CalibrationError(f"{where}: attempts: expected at most 2^53 in all, found {total} up to this row")
        t.seconds += _amount(row.get("seconds"), where, "seconds")
        t.hints += _amount(row.get("hints"), where, "hints")
    return tallies


def content_hash(path: str) -> str:
    """SHA-256 of a file's bytes, or of a directory's files (sorted, each path then its bytes)."""
    h = hashlib.sha256()
    p = Path(path)
    if p.is_dir():
        for f in sorted(x for x in p.rglob("*") if x.is_file()):
            h.update(f.relative_to(p).as_posix().encode() + b"\0")
            h.update(f.read_bytes())
    else:
        h.update(read_bounded(path, MAX_FILE_BYTES, "a file", CalibrationError))
    return h.hexdigest()


def _short(label: str) -> str:
    return label.rpartition("#")[2]


def by_level(pack: str, levels: list[tuple[str, Level]], tallies: dict[str, Tally]) -> dict[str, Tally]:
    """``tallies`` keyed by the pack's label of their level (``levels``, from ``load_levels``),
    the rows of every label that names one level added up: ``PACK#ID`` and ``ID`` are the same
    level's plays, and counted apart they would be two levels, one of which could land in a
    fold's training levels and the other in its held-out ones. Raises :class:`CalibrationError`
    naming labels whose ``PACK`` is not ``pack``'s file or directory name, or whose ``ID`` is
    not in it."""
    home = Path(pack).name
    foreign = [lab for lab in tallies if "#" in lab and Path(lab.rpartition("#")[0]).name != home]
    if foreign:
        raise CalibrationError(f"plays: {len(foreign)} level(s) of another pack than {home}: {_names(foreign)} "
                               f"(expected PACK#ID with PACK naming {home}, or the ID alone)")
    by_id = {_short(label): label for label, _ in levels}
    unknown = [lab for lab in tallies if _short(lab) not in by_id]
    if unknown:
        ids = ", ".join(list(by_id)[:3])
        raise CalibrationError(f"plays: {len(unknown)} level(s) not found in {pack}: {_names(unknown)} "
                               f"(expected labels as llkgen verify prints them, PACK#ID, or the ID: {ids}, ...)")
    merged: dict[str, Tally] = {}
    for lab, t in tallies.items():
        m = merged.setdefault(by_id[_short(lab)], Tally())
        m.attempts += t.attempts
        m.clears += t.clears
        m.seconds += t.seconds
        m.hints += t.hints
        m.rows += t.rows
    return merged


def match(pack: str, tallies: dict[str, Tally]) -> tuple[PlayData, list[str]]:
    """The plays joined to the pack's levels (:func:`by_level`): the data to fit, and the
    pack's labels of the levels left out for too few attempts. Raises
    :class:`CalibrationError` naming labels of another pack, levels not in the pack, levels
    without the ladder's measurement, or too few levels left."""
    levels = load_levels(pack)
    merged = by_level(pack, levels, tallies)
    level_of = dict(levels)
    few = [lab for lab, t in merged.items() if t.attempts < MIN_ATTEMPTS]
    used = [lab for lab in merged if lab not in few]
    labels, x, var, att, clr, unmeasured = [], [], [], [], [], []
    for full in used:
        lv = level_of[full]
        feats = features_of(lv.extra.get("metrics") or {}, lv.extra.get("players"))
        if feats is None:
            unmeasured.append(full)
            continue
        labels.append(full)
        x.append(feats[0])
        var.append(feats[1])
        att.append(merged[full].attempts)
        clr.append(merged[full].clears)
    if unmeasured:
        raise CalibrationError(f"{pack}: {len(unmeasured)} level(s) without the player ladder's clear rates or a "
                               f"random clear rate: {_names(unmeasured)}; make the pack with grading enabled")
    if len(labels) < MIN_LEVELS:
        why = f"; left out for fewer than {MIN_ATTEMPTS} attempts: {_names(few)}" if few else ""
        raise CalibrationError(f"plays: expected at least {MIN_LEVELS} levels with at least {MIN_ATTEMPTS} attempts "
                               f"each, found {len(labels)}{why}")
    data = PlayData(tuple(labels), np.array(att), np.array(clr), np.array(x), np.array(var))
    return data, few


def calibrate(pack: str, plays: str, seed: int = 0) -> Calibration:
    """The calibration of ``pack`` from ``plays`` (module docstring), with the file's record of
    where it came from."""
    tallies = read_plays(plays)
    data, few = match(pack, tallies)
    cal = fit(data, seed)
    name = load_pack(pack).name if os.path.isfile(pack) and _is_pack(pack) else Path(pack).stem
    source = {"pack": {"path": str(pack), "name": name, "sha256": content_hash(pack)},
              "plays": {"path": str(plays), "sha256": content_hash(plays),
                        "rows": sum(len(t.rows) for t in tallies.values()), "levels": len(data) + len(few),
                        "seconds": round(sum(t.seconds for t in tallies.values()), 3),
                        "hints": round(sum(t.hints for t in tallies.values()), 3),
                        "left_out": few}}
    return dataclasses.replace(cal, source=source)


def _is_pack(path: str) -> bool:
    obj = read_json(path)
    return isinstance(obj, dict) and "levels" in obj


def write_calibration(cal: Calibration, out: str) -> Path:
    """Write ``cal`` as ``llkgen.calibration/1``, atomically."""
    return write_text_atomic(out, json.dumps(cal.to_json(), indent=1) + "\n")


def _scores_lines(s: Scores) -> list[str]:
    out = [f"  {s.name}: Spearman rho {s.spearman.text()}, mean absolute error {s.mae.text()}"]
    return out


def report_text(cal: Calibration) -> str:
    """The text ``llkgen calibrate`` prints: the model chosen and the held-out figures, with
    the calibrated prediction's table by decile."""
    cv = cal.chosen_by
    lines = [f"{cal.levels} levels, {cal.attempts} attempts; {cv['folds']}-fold cross-validation chose "
             f"{cv['chosen']} (log-loss per attempt: "
             + ", ".join(f"{k} {v:.4f}" for k, v in cv["log_loss"].items())
             + f"); residual variance {cal.tau2:.3f} + {cal.tau2_slope:.3f} x logit^2; "
             f"prediction intervals widened x{math.sqrt(cal.interval_scale):.2f} to cover held-out levels",
             "held-out levels (90% bootstrap intervals):"]
    for s in cal.held_out:
        lines += _scores_lines(s)
    lines.append("calibrated prediction by decile: levels, mean predicted, players' clear rate [90%]")
    for d in cal.held_out[0].deciles:
        lines.append(f"  {d.levels:4d}  {d.predicted:.3f}  {d.observed.text()}")
    left = (cal.source.get("plays") or {}).get("left_out") or []
    if left:
        lines.append(f"left out for fewer than {MIN_ATTEMPTS} attempts: {_names(left)}")
    return "\n".join(lines)


__all__ = ["MAX_COUNT", "read_plays", "by_level", "match", "calibrate", "write_calibration", "report_text",
           "content_hash", "Tally"]
