"""The ``llkgen-verify`` pre-commit hook (``.pre-commit-hooks.yaml``), run for real.

``pre-commit try-repo`` installs the hook from this checkout, as a level repository's
``.pre-commit-config.yaml`` would (a fresh virtualenv, ``pip install`` of the repository), and
runs it on files of a scratch git repository: the hook passes on a level whose stored solution
replays and fails on one whose stored solution does not.

``try-repo`` installs what is committed, plus the changes to files git already tracks; a new
file that is not yet added (such as a new hook manifest) would be missing. So the test installs
from a snapshot instead: the checkout's files as they are on disk (tracked and untracked, minus
what .gitignore ignores), committed to a repository under ``tmp_path``. The checkout itself is
only read. ``LLKGEN_PURE=1`` skips compiling the accelerator (setup.py); the hook's
environment is still built twice (``try-repo`` keeps no cache between runs), mostly from pip's
cache once the first run has filled it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from paths import ROOT

CHECKOUT = ROOT
LEVEL = {"format": "llkgen.level/1", "id": "demo", "rows": 3, "cols": 4,
         "grid": [[1, 2, 0, 2], [-1, 0, 0, 1], [3, 0, 0, 3]], "rules": {"border": True, "gravity": "none"}}
GOOD = {**LEVEL, "solution": [[[0, 1], [0, 3]], [[0, 0], [1, 3]], [[2, 0], [2, 3]]]}
# The 1s cannot be joined while the 2s are on the board: the replay fails at move 0.
BAD = {**LEVEL, "solution": [[[0, 0], [1, 3]], [[0, 1], [0, 3]], [[2, 0], [2, 3]]]}

pytestmark = [
    # Each test builds a hook environment (about 15 s): .ci/run runs them with -m slow.
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("git") is None, reason="needs git"),
    pytest.mark.skipif(importlib.util.find_spec("pre_commit") is None,
                       reason="needs pre-commit (pip install --group dev)"),
    pytest.mark.skipif(not (CHECKOUT / ".git").exists(),
                       reason=f"{CHECKOUT} is not a git checkout (an unpacked sdist?): no hook to install"),
]


def _env(tmp_path: Path) -> dict[str, str]:
    # No GIT_DIR and the like from a calling git hook; no user git config (signing, hooksPath).
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1",
               GIT_AUTHOR_NAME="llkgen tests", GIT_AUTHOR_EMAIL="tests@invalid",
               GIT_COMMITTER_NAME="llkgen tests", GIT_COMMITTER_EMAIL="tests@invalid",
               PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"), LLKGEN_PURE="1")
    return env


def _git(cwd: Path, env: dict[str, str], *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def _commit_all(repo: Path, env: dict[str, str]) -> None:
    _git(repo, env, "init", "-q", "-b", "main")
    _git(repo, env, "add", "-A")
    _git(repo, env, "commit", "-q", "--no-verify", "-m", "snapshot")


def _snapshot(dest: Path, env: dict[str, str]) -> Path:
    """The checkout's files as they are on disk, committed to a new repository at ``dest``."""
    listed = _git(CHECKOUT, env, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    for name in filter(None, listed.split("\0")):
        src = CHECKOUT / name
        if src.is_file():  # a tracked file deleted in the working tree is left out
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    _commit_all(dest, env)
    return dest


@pytest.fixture(scope="module")
def hook(tmp_path_factory):
    """``run(*files)``: ``pre-commit try-repo SNAPSHOT llkgen-verify --files ...`` in a scratch
    level repository, as a completed process."""
    tmp = tmp_path_factory.mktemp("precommit")
    env = _env(tmp)
    source = _snapshot(tmp / "llkgen", env)
    levels = tmp / "levels"
    levels.mkdir()
    (levels / "good.json").write_text(json.dumps(GOOD), "utf-8")
    (levels / "bad.json").write_text(json.dumps(BAD), "utf-8")
    (levels / ".vscode").mkdir()
    (levels / ".vscode" / "settings.json").write_text('{"editor.tabSize": 2}', "utf-8")
    _commit_all(levels, env)

    def run(*files: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(source), "llkgen-verify",
                               "--verbose", "--color", "never", "--files", *files],
                              cwd=levels, env=env, capture_output=True, text=True, timeout=900)

    return run


def test_hook_passes_on_a_level_whose_solution_replays(hook):
    # The hidden file is excluded by the hook's default exclude, as `llkgen verify DIR` skips it.
    r = hook("good.json", ".vscode/settings.json")
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert "ok         good.json: solvable: the stored solution replays" in out
    assert "1 level in 1 file: 1 certified" in out  # settings.json was not handed to llkgen


def test_hook_fails_on_a_level_whose_solution_does_not_replay(hook):
    r = hook("bad.json")
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    assert "FAILED     bad.json: stored solution fails: move 0" in out
    assert "1 failed (exit 1)" in out
