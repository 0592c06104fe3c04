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
    ("easy", 3): "91d369d736de810f1d522f873fe9ee1525032c722afff25278d6138ea8d663e8",
    ("medium", 2): "51cf6bb0568c4a998843a6454573c6242557b1f2ff040160ba64a6c05ee578d4",
    ("hard", 1): "a34ba4764cdbb82d5ac4621ec726e8f22c1c711d8e81ec376ad741b43c60588c",
    ("gravity", 1): "9e84c9c8f142ffb5b4553d98da2a1a809c8dfc5534e9868a69c7b8f7196e6d9a",
    ("ramp", 2): "8b084c0847b538dcece024fd6b07f6f65a3b6b949944cb42045b58987480654a",
    ("shapes", 3): "f77f6a76f470324a6b419aaff281a8ab61d34df14207130b7bd97e3e17737e46",
    ("viewer-demo", 3): "55d2508cf21d90a298b2eaf93985ccb39e3a7cf67b4382e5b455cc3c7bd2993d",
    ("walls-gravity.yaml", 3): "c9f5bf52b0c4156e0d0653f6100abd6a07ced253b5fc93b0e645794968d352ee",
    ("walls-files.yaml", 3): "6a43c2d62c95477b1eafaa54488ba56059e7b89b1a1646bbd648afb8e3dac2a4",
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
