"""The checker behind the spec reader: every check of a value in a spec's raw data, each with
one form of message (``FILE:LINE: key.path: expected ..., found ...``).

:mod:`llkgen.generation.spec` reads a spec's sections with it, and
:mod:`llkgen.generation.spec_targets` the difficulty targets and how they are measured."""

from __future__ import annotations

import difflib
from typing import Any, NoReturn, Sequence

from llkgen.errors import SpecError
from llkgen.generation.spec_model import MetricRange, is_int
from llkgen.generation.strictyaml import KeyIndex, KeyPath, ListIndex, describe, fmt_path, quote

#: A default that says "required": no default given.
MISSING = object()


def is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


class Checker:
    """Checks one spec's raw data and raises :class:`SpecError` with the source, the line (from
    the :class:`KeyIndex`), the key path, and what was expected against what was found."""

    def __init__(self, source: str, index: KeyIndex) -> None:
        self.source = source
        self.index = index

    def _where(self, path: KeyPath) -> str:
        # The nearest recorded ancestor gives the line; the whole document has none worth citing.
        p = path
        while p:
            line = self.index.line(p)
            if line is not None:
                return f"{self.source}:{line}"
            p = p[:-1]
        return self.source

    def fail(self, path: KeyPath, message: str) -> NoReturn:
        raise SpecError(f"{self._where(path)}: {fmt_path(path)}: {message}")

    def fail_at(self, path: KeyPath, message: str) -> NoReturn:
        """Like :meth:`fail` without repeating the path (the message already cites it)."""
        raise SpecError(f"{self._where(path)}: {message}")

    def expected(self, path: KeyPath, what: str, found: Any) -> NoReturn:
        hint = ""
        if isinstance(found, bool) and ("one of" in what or "string" in what or "name" in what):
            hint = " (YAML reads yes/no/on/off as booleans: quote the value)"
        self.fail(path, f"expected {what}, found {describe(found)}{hint}")

    def section(
        self,
        value: Any,
        path: KeyPath,
        keys: Sequence[str],
        required: Sequence[str] = (),
    ) -> dict:
        """Check a mapping: no unknown keys (with a did-you-mean), all required keys present.
        A null optional section means 'all defaults'."""
        if value is None and not required:
            return {}
        if not isinstance(value, dict):
            self.expected(path, f"a mapping with keys {', '.join(keys)}", value)
        for key in value:
            if key not in keys:
                child = path + (key,)
                close = difflib.get_close_matches(str(key), keys, n=1, cutoff=0.6)
                advice = (
                    f"did you mean {quote(close[0])}?"
                    if close
                    else "expected one of " + ", ".join(map(quote, keys))
                )
                self.fail_at(child, f"unknown key {quote(key)} at {fmt_path(child)}: {advice}")
        for key in required:
            if key not in value:
                where = fmt_path(path) if path else "the top level"
                self.fail_at(path, f"missing required key {quote(key)} in {where}")
        return value

    def integer(
        self, m: dict, path: KeyPath, key: str, lo: int, hi: int | None, default: Any = MISSING
    ) -> int:
        v = m.get(key, default)
        what = f"an integer in {lo}..{hi}" if hi is not None else f"an integer >= {lo}"
        if not is_int(v) or v < lo or (hi is not None and v > hi):
            self.expected(path + (key,), what, v)
        return v

    def boolean(self, m: dict, path: KeyPath, key: str, default: bool) -> bool:
        v = m.get(key, default)
        if not isinstance(v, bool):
            self.expected(path + (key,), "true or false", v)
        return v

    def choice(self, m: dict, path: KeyPath, key: str, options: Sequence[str], default: str) -> str:
        v = m.get(key, default)
        if not isinstance(v, str) or v not in options:
            what = "one of " + ", ".join(options)
            if isinstance(v, str):
                close = difflib.get_close_matches(v, options, n=1, cutoff=0.6)
                if close:
                    self.fail(
                        path + (key,),
                        f"expected {what}, found {quote(v)}: did you mean {quote(close[0])}?",
                    )
            self.expected(path + (key,), what, v)
        return v

    def number(self, m: dict, path: KeyPath, key: str, lo: float, hi: float, default: float) -> float:
        v = m.get(key, default)
        if not is_number(v) or not lo <= v <= hi:
            self.expected(path + (key,), f"a number in {lo:g}..{hi:g}", v)
        return float(v)


def check_range(ck: Checker, m: dict, path: KeyPath, metric: str, top: float | None = None) -> MetricRange | None:
    raw = m.get(metric)
    if raw is None:
        return None
    mpath = path + (metric,)
    top = top if top is not None else {"random_clear_rate": 1, "score": 100}.get(metric)
    is_rate = top is not None
    what = f"a number in 0..{top}" if is_rate else "an integer >= 0"
    if not isinstance(raw, list) or len(raw) != 2:
        ck.expected(mpath, f"[min, max] where each is {what} or null", raw)
    bounds = []
    for i, v in enumerate(raw):
        if is_rate:
            ok = v is None or (is_number(v) and 0 <= v <= (top or 1))
        else:
            ok = v is None or (is_int(v) and v >= 0)
        if not ok:
            ck.expected(mpath + (ListIndex(i),), f"{what} or null", v)
        bounds.append(float(v) if is_rate and v is not None else v)
    low, high = bounds
    if low is not None and high is not None and low > high:
        ck.fail(mpath, f"expected min <= max, found [{describe(raw[0])}, {describe(raw[1])}]")
    return MetricRange(low, high)


__all__ = ["MISSING", "Checker", "check_range", "is_number"]
