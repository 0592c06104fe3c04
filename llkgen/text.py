"""Text from the user's files, made safe for each kind of output.

A JSON string may hold a lone UTF-16 surrogate (``"\\ud800"``) and any control character. A
file name found in a directory may hold bytes that are not UTF-8, which Python keeps as the
surrogates U+DC80..U+DCFF. No surrogate can be encoded as UTF-8, and XML 1.0 forbids most
control characters even as character references. So every string that came from a file or a
file name passes through one of these functions before it is written:

* :func:`printable` for terminal lines: surrogates and control characters become visible
  escapes;
* :func:`xml_text` for SVG, HTML and JUnit XML: the same, plus the characters XML forbids;
* :func:`json_dumps` for JSON: a lone surrogate is written as its ``\\uXXXX`` escape, which is
  valid JSON and decodes back to the same string.
"""

from __future__ import annotations

import json
import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
# What a terminal must not be sent raw: surrogates, and control characters other than tab and
# newline (an escape sequence in a level id could recolour or rewrite a CI log).
_NOT_PRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
# XML 1.0 Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]. A pattern,
# not compiled here: compiling it takes ~3 ms, and only the JUnit and HTML writers need it.
_NOT_XML = "[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"


def _escape(ch: str) -> str:
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # a byte of a file name that was not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with every surrogate shown as ``\\xNN`` (an undecodable file-name byte) or
    ``\\uXXXX`` (a lone surrogate from JSON), and every control character other than tab and
    newline as ``\\xNN``. The result always encodes as UTF-8 and is safe on a terminal."""
    return _NOT_PRINTABLE.sub(lambda m: _escape(m.group()), text)


def xml_text(text: str) -> str:
    """``text`` with every character XML 1.0 cannot carry (surrogates, control characters
    other than tab, newline and carriage return, U+FFFE, U+FFFF) shown as a visible escape, so
    the result is well-formed in any XML text or attribute once markup is escaped."""
    return re.sub(_NOT_XML, lambda m: _escape(m.group()), text)  # re caches the compiled pattern


def json_dumps(obj: Any, **kwargs: Any) -> str:
    """``json.dumps(obj, ensure_ascii=False, **kwargs)``, except that lone surrogates are
    written as ``\\uXXXX`` escapes: valid JSON, encodable as UTF-8, and ``json.loads`` gives
    back the same strings. (A surrogate can only occur inside a JSON string, so replacing it
    by its escape is exact.)"""
    return escape_surrogates(json.dumps(obj, ensure_ascii=False, **kwargs))


def escape_surrogates(json_text: str) -> str:
    """JSON text from ``json.dumps(..., ensure_ascii=False)`` with every lone surrogate
    replaced by its ``\\uXXXX`` escape."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", json_text)


def int_text(v: int) -> str:
    """An int for a message; Python refuses to print ints of more than 4300 digits."""
    return str(v) if abs(v) < 10**30 else "with more than 30 digits"


def describe_value(v: object) -> str:
    """Describe a JSON value for an error message."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return f"boolean {str(v).lower()}"
    if isinstance(v, int):
        return f"number {int_text(v)}"
    if isinstance(v, float):
        return f"number {v!r}"
    if isinstance(v, str):
        return f"string {v[:40]!r}"
    if isinstance(v, list):
        return f"a list of {len(v)}"
    if isinstance(v, dict):
        return "an object"
    return type(v).__name__
