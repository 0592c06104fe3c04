"""Pinned packs: the bytes ``llkgen make`` writes for every shipped spec at a fixed seed, plus a
walled gravity pack (flat grids) and a walled ``files``-layout pack.

A refactoring must leave these bytes alone. The only part of a pack allowed to differ between
releases is the version in its ``generator`` field, which is masked before hashing. When a
change is *meant* to alter what ``make`` writes (a new metric, a new format version), update the
hashes in the same commit and say why in its message.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from cli_runner import run_cli_in_process

DATA = Path(__file__).parent / "data" / "golden"

#: spec (a shipped name or a file under tests/data/golden), level count -> sha256 of the pack.
PINNED = {
    ("easy", 3): "230fe31fb3cfaf2d95abd1889b9bf18482ce19ff687a44b7096ac05979bbb176",
    ("medium", 2): "28fe57386f29186e87c2f4c97f815c8e12d4a2431e86be1fd3085ca88b86abed",
    ("hard", 1): "f23c762a1f84caad76aa29dec9774decbe09260d26eb5e9f417144a1b69f63b5",
    ("gravity", 1): "f779b4ed1245003c4eb46166ebc5a14b45b47579183a1fa703612a90c313fda9",
    ("ramp", 2): "c0b90e6fe5050ca574fb2fc46c37a238b6978097bdf966da28c29447f73ad7b4",
    ("shapes", 3): "a33c477c6e85ec193faf3550398fa0fb3913889f3fc16ec8181a1e2903bc4dd5",
    ("viewer-demo", 3): "2a9146dd5c7737c53af5c7fa19a6a5e27d8793b1e51334e9b26b8cc3cb929a89",
    ("walls-gravity.yaml", 3): "bae3a51ff044a94fe09770ffa078869c189f9a3d4d19c944aa9003a778e0b144",
    ("walls-files.yaml", 3): "856a09009c699591b7832299a6812be2d1d1bcb6d13f7a8a4436e14d5a492997",
}

_VERSION = re.compile(rb"llkgen \d+\.\d+\.\d+[^\"]*")


def pack_digest(out: Path) -> str:
    """sha256 over a pack file, or over a pack directory's files (sorted by name), with the
    generator's version masked."""
    files = sorted(p for p in out.rglob("*") if p.is_file()) if out.is_dir() else [out]
    h = hashlib.sha256()
    for f in files:
        h.update(f.relative_to(out).as_posix().encode() if out.is_dir() else b"")
        h.update(_VERSION.sub(b"llkgen VERSION", f.read_bytes()))
    return h.hexdigest()


@pytest.mark.parametrize(("spec", "count"), sorted(PINNED))
def test_make_writes_the_pinned_bytes(spec, count, tmp_path, monkeypatch, capsys):
    config = str(DATA / spec) if spec.endswith(".yaml") else spec
    out = tmp_path / (spec.removesuffix(".yaml") + ("" if spec == "walls-files.yaml" else ".json"))
    code, _, err = run_cli_in_process(["make", "--config", config, "--count", str(count), "--jobs", "1",
                                       "--out", str(out), "-q"], monkeypatch, capsys)
    assert code == 0, err
    assert pack_digest(out) == PINNED[(spec, count)]
