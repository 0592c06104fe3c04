"""The one tiny spec the tests build packs from, as YAML text.

``tiny_spec(**overrides)`` gives a 4x6 board of 6 types, certified in milliseconds. Each
keyword replaces one top-level section by its YAML text (``rules="{gravity: down}"``, ``count=7``);
``None`` leaves the section out. The text keeps one section a line, in flow style, so a test can
still edit it with ``str.replace`` (``.replace("cols: 6", "colls: 6")`` makes a typo).
"""

from __future__ import annotations

DEFAULTS = {
    "name": "tiny",
    "seed": 3,
    "count": 4,
    "board": "{rows: 4, cols: 6}",
    "rules": None,
    "tiles": "{types: 6, copies: 4}",
    "generator": "{strategy: shuffle, max_attempts: 50}",
    "difficulty": "{initial_moves: [2, null], playthroughs: 8}",
    "verify": "{nodes: 20000}",
    "grading": None,
    "ramp": None,
    "export": "{path: tiny.json}",
}


def tiny_spec(**overrides: object) -> str:
    unknown = sorted(set(overrides) - set(DEFAULTS))
    if unknown:
        raise TypeError(f"tiny_spec: unknown sections {unknown}")
    sections = {**DEFAULTS, **overrides}
    return "".join(f"{key}: {value}\n" for key, value in sections.items() if value is not None)
