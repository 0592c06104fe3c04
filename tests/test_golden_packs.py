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
    ("easy", 3): "c158905df86fdb640f159049355c09c047090f00a9e72c3f72769d425e595c30",
    ("medium", 2): "63a64997896a0b00f041ed3f150cc8515a6dc7943122edc928a809928ff0cd59",
    ("hard", 1): "9005b2fb75b06fa69fc1a41be7afe913465a31f1e5bdec5298b8917728aea0d3",
    ("gravity", 1): "73045f6c25f181ab740e4b8614a98885d5ce359dd8580fffab9ed8977577fd56",
    ("ramp", 2): "bdeb7b538b69fe34d12fa43c2ebc5fd87cb621ca606a874f6a1b8fef3ef2ebd2",
    ("shapes", 3): "1a4b3fd8253d3a2a0b0c1ebda6420ff29d88be45416515803b35e60c714ea972",
    ("viewer-demo", 3): "61b1e282522230e8990e6cde83947c4a34d0bf608c70d565413bbb239124f377",
    ("walls-gravity.yaml", 3): "dae5b4df30a48727ae448a914c5000b2e16104d66eba3a0e25bbeccba7f72b89",
    ("walls-files.yaml", 3): "c47497b91823bf50e028eb43c309204b4a19c0e9547c75b2050a4952822bfabd",
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
