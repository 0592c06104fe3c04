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
from paths import DATA as TEST_DATA

DATA = TEST_DATA / "golden"

#: spec (a shipped name or a file under tests/data/golden), level count -> sha256 of the pack.
PINNED = {
    ("easy", 3): "d6717598cbedad55ef6560bcf1c716da3203c29595ace19cf232dc7feb85bbd1",
    ("medium", 2): "a861bb348fe5b570e7e489885765e8b623196eadaaedede29f3705147106941c",
    ("hard", 1): "fc8ea0f3567abc977e7cb0912400f19638b617d4a88c27eb7501647262deb569",
    ("gravity", 1): "edb0ef827194193be0d2dace3412a4b5a799fb7a014661d27bd2f95a24200691",
    # The ramp's screening stops at its own precision and judges against the guard band, and the
    # fresh measurement of a screened candidate stops by where it can still end (difficulty.py's
    # SCREEN_PRECISION, PREDICTIVE_STOP): other candidates are measured fresh, other levels kept.
    ("ramp", 2): "93004dc68b182dd59f0c1a9f2c97f26b5e5c2b86244192c6932664c43e7f899f",
    ("shapes", 3): "b877cec469cd24d727842cf82ec308ff7de391eec023394b163d0c62fdd92658",
    ("viewer-demo", 3): "cca472f38f94b469e706e5677a5eb8ca8efee4a78dea9908cee7b866c957e039",
    ("walls-gravity.yaml", 3): "f380ed721de8c394a163e5dcd2f919480c819c2208c62b6ebee19f9a4066a303",
    ("walls-files.yaml", 3): "c33f439a7ae711002b9e3687e7a9874c278b0be159e5e73fa7ddc0569603e591",
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
