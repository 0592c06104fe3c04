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
    ("easy", 3): "7bc634a1b02cf306ce1738b0fc3e9c0b3a467f6096dd0022ac955cdba70c046e",
    ("medium", 2): "f88d3acf6c1f171476d8c8b32e8fe99040ba809ab44bf37837f3784a21d44116",
    ("hard", 1): "f0c7e608ad888d39c129210cbd53cc6a8598a39afa6578905a20221c8f3726f7",
    ("gravity", 1): "b9018f1635d081bfa4d5155e41f8b566d72baf074daf89243836e48276290659",
    ("ramp", 2): "3320d92ca6d12090576a30b1b7886042d1823156f80cea24cb459d218e2b08a1",
    ("shapes", 3): "56da1e71d9a1bcdd1508f6288be9dfbefb350e4df6ca07ee975af5d49f1bb02f",
    ("viewer-demo", 3): "e0fedf0765a624aaa26b15e53cb31420d9979215d7f90c52a44bfa0e2048b1f4",
    ("walls-gravity.yaml", 3): "5a68f3d2eb5b55cca4a7c562465757b7a4f5882125a2333d4aa5e0e7c1cc47c1",
    ("walls-files.yaml", 3): "c8a2f1efaaf5344828f9a560ab98449fffc9450eb251875983a65719de4ea749",
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
