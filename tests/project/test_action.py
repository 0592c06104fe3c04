"""The composite GitHub Action (action.yml), run as the runner runs it: its steps in order, each
``run:`` in ``bash --noprofile --norc -eo pipefail`` with the environment the step declares,
every ``${{ … }}`` expression replaced by its value, and a fresh ``GITHUB_OUTPUT`` file per step
whose ``name=value`` lines become ``steps.<id>.outputs``. The runner's files are fakes in a
temporary directory: ``RUNNER_TEMP``, ``GITHUB_STEP_SUMMARY``, ``GITHUB_ENV``, ``GITHUB_PATH``.

Steps that use another action are simulated: ``actions/setup-python`` gives this interpreter as
its ``python-path``; ``actions/cache`` restores nothing. The install step runs as written, from
this checkout, with ``PIP_NO_DEPS=1`` and ``LLKGEN_PURE=1`` in the caller's environment (no
download, no compile); the dependencies are then lent to the new venv by a ``.pth`` file naming
this interpreter's site-packages, as pip would have installed them.

The repository verified holds one certified level, one unsolvable level and one file that is
not JSON. The test reads the annotations printed, the job summary, the outputs, and the
caller's ``python`` after the action.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import site
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest
import yaml

from paths import ROOT

ACTION = ROOT / "action.yml"

# The runner's bash, and a venv laid out as on Linux and macOS (bin/, lib/pythonX.Y/).
pytestmark = pytest.mark.skipif(os.name != "posix" or shutil.which("bash") is None, reason="runs the steps in bash")

GOOD = """{"format": "llkgen.level/1", "id": "demo-1", "rows": 3, "cols": 4,
 "grid": [[1, 2, 0, 2], [-1, 0, 0, 1], [3, 0, 0, 3]],
 "rules": {"border": true, "gravity": "none"}}
"""
#: Each tile's twin sits diagonally across the 2x2 board: no path with two turns joins them.
UNSOLVABLE = """{"format": "llkgen.level/1", "id": "crossed", "rows": 2, "cols": 2,
 "grid": [[1, 2], [2, 1]], "rules": {"border": true, "gravity": "none"}}
"""
BAD = '{"format": "llkgen.level/1",\n "rows": 2\n'

EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def evaluate(text: str, contexts: dict) -> str:
    """``text`` with each ``${{ a || b || 'literal' }}`` replaced as the runner would: the first
    term that is not empty. Only dotted names and quoted literals: a name no context holds fails
    the test, so a new expression in action.yml must be taught here."""
    def term(t: str) -> str:
        t = t.strip()
        if t.startswith("'") and t.endswith("'"):
            return t[1:-1]
        value: object = contexts
        for part in t.split("."):
            assert isinstance(value, dict) and part in value, f"action.yml uses {t!r}, which the test does not know"
            value = value[part]
        return str(value)
    return EXPRESSION.sub(lambda m: next((v for v in map(term, m.group(1).split("||")) if v), ""), text)


def read_outputs(path: Path) -> dict[str, str]:
    """A ``GITHUB_OUTPUT`` file: ``name=value`` lines and ``name<<DELIMITER`` blocks."""
    outputs, lines = {}, path.read_text(encoding="utf-8").splitlines()
    while lines:
        line = lines.pop(0)
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter)
            outputs[name], lines = "\n".join(lines[:end]), lines[end + 1:]
        elif line:
            name, value = line.split("=", 1)
            outputs[name] = value
    return outputs


def simulate(uses: str, with_: dict, contexts: dict) -> dict[str, str]:
    """The outputs of a step that uses another action, as the test stands in for it."""
    if uses.startswith("actions/setup-python@"):
        # The caller's later steps must keep their Python: nothing may go onto PATH.
        assert with_.get("update-environment") is False, "setup-python must not change the caller's Python"
        assert evaluate(str(with_["python-version"]), contexts)
        return {"python-path": sys.executable, "python-version": platform.python_version()}
    if uses.startswith("actions/cache@"):
        path = evaluate(with_["path"], contexts)
        assert Path(path).is_relative_to(contexts["runner"]["temp"]), "the cache is the action's own directory"
        key = evaluate(with_["key"], contexts)
        assert contexts["runner"]["os"] in key and platform.python_version() in key, key
        return {"cache-hit": "false"}
    raise AssertionError(f"action.yml uses {uses}, which the test does not simulate")


def run_action(inputs: dict[str, str], workspace: Path, runner: Path, env: dict[str, str],
               after: Callable[[str], None] = lambda key: None):
    """Run action.yml's steps in order; ``(outputs, logs, failed)``: the action's outputs, each
    step's stdout and stderr by id (or index), and whether a step failed (the later ones then
    do not run, and the action fails). ``after(key)`` is called after each step."""
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    given = {name: inputs.get(name, spec.get("default", "")) for name, spec in action["inputs"].items()}
    assert set(inputs) <= set(given), set(inputs) - set(given)
    contexts: dict = {
        "inputs": given,
        "github": {"action_path": str(ROOT), "action_ref": "", "workspace": str(workspace)},
        "runner": {"temp": str(runner), "os": "Linux", "arch": "X64"},
        "steps": {},
    }
    logs: dict[str, str] = {}
    failed = False
    for k, step in enumerate(action["runs"]["steps"]):
        assert "if" not in step, "the test runs every step: teach it `if:`"
        key = step.get("id", str(k))
        if "uses" in step:
            outputs = simulate(step["uses"], step.get("with", {}), contexts)
        else:
            assert step["shell"] == "bash"
            output_file = runner / f"output-{k}"
            output_file.write_text("")
            script = runner / f"step-{k}.sh"
            script.write_text(evaluate(step["run"], contexts), encoding="utf-8")
            step_env = dict(env, GITHUB_OUTPUT=str(output_file))
            step_env.update({name: evaluate(str(value), contexts) for name, value in step.get("env", {}).items()})
            r = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=workspace,
                               env=step_env, capture_output=True, text=True, timeout=600)
            logs[key] = r.stdout + r.stderr
            outputs = read_outputs(output_file)
            failed = r.returncode != 0
        contexts["steps"][key] = {"outputs": outputs}
        if failed:
            break
        after(key)
    return {name: evaluate(spec["value"], contexts) for name, spec in action["outputs"].items()}, logs, failed


def caller_python(env: dict[str, str], runner: Path) -> str:
    """Which ``python`` a later step of the caller runs, and its prefix: the caller's PATH, with
    what the action asked the runner to add to it and to the environment (``GITHUB_PATH``,
    ``GITHUB_ENV``: the only ways a step changes the next)."""
    added = (runner / "github_path").read_text().split()
    env = dict(env, PATH=os.pathsep.join([*reversed(added), env["PATH"]]))
    for line in (runner / "github_env").read_text().splitlines():
        name, _, value = line.partition("=")
        env[name] = value
    r = subprocess.run(["bash", "-c", 'command -v python; python -c "import sys; print(sys.prefix)"'], env=env,
                       capture_output=True, text=True, check=True)
    return r.stdout


def test_the_action_annotates_summarises_and_outputs_without_touching_the_callers_python(tmp_path):
    workspace, runner = tmp_path / "levels-repo", tmp_path / "runner"
    (workspace / "levels").mkdir(parents=True)
    runner.mkdir()
    (workspace / "levels" / "good.json").write_text(GOOD)
    (workspace / "levels" / "unsolvable.json").write_text(UNSOLVABLE)
    (workspace / "levels" / "bad.json").write_text(BAD)
    summary = runner / "step_summary.md"
    summary.write_text("## Earlier step\n")
    for name in ("github_path", "github_env"):
        (runner / name).write_text("")
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env.update(RUNNER_TEMP=str(runner), GITHUB_STEP_SUMMARY=str(summary), GITHUB_ENV=str(runner / "github_env"),
               GITHUB_PATH=str(runner / "github_path"), GITHUB_WORKSPACE=str(workspace),
               PIP_NO_DEPS="1", LLKGEN_PURE="1", COLUMNS="200", NO_COLOR="1")
    before = caller_python(env, runner)

    def lend_dependencies(key: str) -> None:
        if key == "install":  # pip ran with --no-deps: the venv sees this interpreter's packages
            [packages] = (runner / "llkgen-venv").glob("lib/python*/site-packages")
            (packages / "dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")

    outputs, logs, failed = run_action({"path": "levels", "junit": "reports/llkgen.xml"}, workspace, runner, env,
                                       after=lend_dependencies)
    assert failed, "the run must fail: a level is unsolvable and a file invalid"
    # The install printed its version from the action's own venv.
    assert "(search core: pure Python, without the C gravity search" in logs["install"], logs["install"]

    # One annotation per level or file not certified, on its file and line; the certified
    # level keeps its text line; the summary line last.
    log = logs["verify"].splitlines()
    annotations = [line for line in log if line.startswith("::")]
    assert annotations == [
        "::error file=levels/unsolvable.json,line=1,title=llkgen verify%3A unsolvable::levels/unsolvable.json: "
        "unsolvable: 4 tiles can never be removed, even if every other tile that could ever link were gone "
        "(lock test)",
        "::error file=levels/bad.json,line=3,title=llkgen verify%3A invalid file::levels/bad.json: bad JSON at line 3 "
        "column 1: Expecting ',' delimiter",
    ], annotations
    assert any(line.startswith("ok ") and "levels/good.json" in line for line in log), log
    assert log[-1].startswith("2 levels in 3 files: 1 certified") and log[-1].endswith("(exit 1)"), log[-1]

    # The job summary: appended after what an earlier step wrote.
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("## Earlier step\n### llkgen verify: not all levels certified\n"), text
    assert "| 1 | 0 | 1 | 0 | 1 | 0 |" in text
    assert "| levels/unsolvable.json | unsolvable | unsolvable: 4 tiles" in text
    assert "| levels/bad.json | invalid file | bad JSON at line 3 column 1" in text

    # The outputs, and the report they name.
    assert outputs == {"certified": "1", "failed": "0", "unsolvable": "1", "unknown": "0", "invalid": "1",
                       "exit-code": "1", "junit": "reports/llkgen.xml"}, outputs
    assert (workspace / "reports" / "llkgen.xml").read_text().startswith("<?xml")

    # The caller's later steps run the same python as before the action.
    assert (runner / "github_path").read_text() == "" and (runner / "github_env").read_text() == ""
    assert caller_python(env, runner) == before
