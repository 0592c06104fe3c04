"""The real ``llkgen`` command: output, ``Error:`` lines and exit codes.

The commands run as subprocesses (``python -m llkgen`` and, once, the installed console script).
Each start-up costs ~0.4 s on an idle machine (Typer imports pydantic), so those invocations
are declared in one table and run concurrently once per module; the tests then assert on the
recorded results. The long table of malformed level files runs every case through the same
``llkgen.cli.main`` in-process (identical code path minus interpreter start-up) and a sample of
it through subprocesses as well.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from cli_runner import run_cli_in_process
from paths import DATA, ROOT
from plays import simulated_plays
from timing import HANG_SECONDS

DEMO = str(DATA / "demo.json")
DEMO_MOVES = str(DATA / "demo.moves.json")
SOLUTION = [[[0, 1], [0, 3]], [[0, 0], [1, 3]], [[2, 0], [2, 3]]]

LEVEL = {
    "format": "llkgen.level/1",
    "id": "t",
    "rows": 3,
    "cols": 4,
    "grid": [[1, 2, 0, 2], [-1, 0, 0, 1], [3, 0, 0, 3]],
    "rules": {"border": True, "gravity": "none"},
}


def _level(**changes):
    obj = json.loads(json.dumps(LEVEL))
    for k, v in changes.items():
        if v is None:
            del obj[k]
        else:
            obj[k] = v
    return obj


def _console_script() -> str:
    """The installed ``llkgen`` entry point next to this interpreter (not a pyenv shim)."""
    here = Path(sys.executable).parent / ("llkgen.exe" if os.name == "nt" else "llkgen")
    return str(here) if here.exists() else shutil.which("llkgen") or "llkgen"


# name -> file content (dict/list: JSON; str: text; bytes: raw)
FILES = {
    "ring.json": {"format": "llkgen.level/1", "id": "ring", "rows": 1, "cols": 4,
                  "grid": [[1, 2, 1, 2]], "rules": {"border": True, "gravity": "none"}},
    "stuck.json": {"format": "llkgen.level/1", "rows": 2, "cols": 2, "grid": [[1, 2], [2, 1]],
                   "rules": {"border": False, "gravity": "down"}},
    "bad-step.json": [SOLUTION[0], SOLUTION[0]],
    "partial.json": [SOLUTION[2]],
    "solution-object.json": {"solution": SOLUTION},
    "moves-object.json": {"moves": SOLUTION},
    "level-with-solution.json": {**LEVEL, "solution": SOLUTION},
    "cleared.json": {"format": "llkgen.level/1", "rows": 1, "cols": 2, "grid": [[0, 0]],
                     "rules": {"border": True, "gravity": "none"}},
    "moves-number.json": 42,
    "moves-no-key.json": {"steps": SOLUTION},
    "malformed-move.json": [SOLUTION[0], [[0, 0]]],
    # validation cases
    "ragged.json": _level(grid=[[1, 2, 0, 2], [-1, 0, 0], [3, 0, 0, 3]]),
    "odd.json": _level(grid=[[1, 2, 0, 2], [-1, 0, 0, 1], [3, 0, 0, 5]]),
    "below.json": _level(grid=[[1, 2, 0, 2], [-5, 0, 0, 1], [3, 0, 0, 3]]),
    "float-cell.json": _level(grid=[[1, 2, 0, 2], [-1, 0, 1.5, 1], [3, 0, 0, 3]]),
    "bool-cell.json": _level(grid=[[1, 2, 0, 2], [-1, 0, True, 1], [3, 0, 0, 3]]),
    "gravity.json": _level(rules={"border": True, "gravity": "north"}),
    "border.json": _level(rules={"border": "no", "gravity": "none"}),
    "huge.json": _level(rows=65, cols=65, grid=[[0] * 65 for _ in range(65)]),
    "bad.json": '{"format": "llkgen.level/1", "rows": 3\n',
    "missing.json": _level(grid=None),
    "mismatch.json": _level(cols=5),
    "format.json": _level(format="llkgen.level/0"),
    "latin1.json": b'{"format": "llkgen.level/1", "id": "\xe9"}',
    "dir": None,  # a directory
    "bigint.json": '{"format": "llkgen.level/1", "rows": ' + "9" * 5000 + "}",
}

VALIDATION = [
    ("ragged.json", "level.grid row 1: ragged rows: expected 4 cells like row 0, found 3"),
    ("odd.json", "level.grid: every tile type must occur an even number of times, "
                 "but type 3 occurs 1 times, type 5 occurs 1 times"),
    ("below.json", "level.grid row 1 col 0: expected -1 (wall), 0 (empty) or a tile type >= 1, found -5"),
    ("float-cell.json", "level.grid row 1 col 2: expected an integer cell value, found number 1.5"),
    ("bool-cell.json", "level.grid row 1 col 2: expected an integer cell value, found boolean true"),
    ("gravity.json", "level.rules.gravity: expected one of none, down, up, left, right, found string 'north'"),
    ("border.json", "level.rules.border: expected true or false, found string 'no'"),
    ("huge.json", "level.grid: board too large: the cap is 64x64, found 65x65"),
    ("bad.json", "bad JSON at line 2 column 1: Expecting ',' delimiter"),
    ("missing.json", "level: missing field 'grid'"),
    ("mismatch.json", "level: rows/cols say 3x5 but the grid is 3x4"),
    ("format.json", "level.format: expected 'llkgen.level/1' or 'llkgen.level-flat/1', found string 'llkgen.level/0'"),
    ("latin1.json", "not UTF-8 text (byte 36)"),
    ("dir", "is a directory, expected a JSON file"),
    ("nope.json", "no such file"),
]


def _cases(tmp: Path) -> dict[str, list[str]]:
    f = lambda name: str(tmp / name)  # noqa: E731
    cases = {
        "show": ["show", DEMO],
        "show-script": [_console_script(), "show", DEMO],
        "moves": ["moves", DEMO],
        "moves-json": ["moves", DEMO, "--json"],
        "moves-ring-json": ["moves", f("ring.json"), "--json"],
        "replay-ok": ["replay", DEMO, DEMO_MOVES],
        "replay-bad-step": ["replay", DEMO, f("bad-step.json")],
        "replay-moves-number": ["replay", DEMO, f("moves-number.json")],
        "replay-json-ok": ["replay", DEMO, DEMO_MOVES, "--json"],
        "version-script": [_console_script(), "--version"],
        "version-module": ["--version"],
        "help": ["--help"],
        "no-command": ["frobnicate"],
        "missing-arg": ["show"],
        "bad-option": ["moves", DEMO, "--yaml"],
        "bigint": ["show", f("bigint.json")],
    }
    for name in SUBPROCESS_VALIDATION:
        cases[f"show:{name}"] = ["show", f(name)]
    return cases


SUBPROCESS_VALIDATION = ("odd.json", "bad.json", "latin1.json", "dir", "nope.json")


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    cmd = argv if argv[0].endswith(("llkgen", "llkgen.exe")) else [sys.executable, "-m", "llkgen", *argv]
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb"}
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=env, timeout=HANG_SECONDS)


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Path:
    """A directory holding every file of :data:`FILES` (``nope.json`` deliberately absent)."""
    tmp = tmp_path_factory.mktemp("cli")
    for name, content in FILES.items():
        p = tmp / name
        if content is None:
            p.mkdir()
        elif isinstance(content, bytes):
            p.write_bytes(content)
        elif isinstance(content, str):
            p.write_text(content, encoding="utf-8")
        else:
            p.write_text(json.dumps(content), encoding="utf-8")
    return tmp


@pytest.fixture(scope="module")
def runs(files) -> dict[str, subprocess.CompletedProcess]:
    cases = _cases(files)
    with ThreadPoolExecutor(max_workers=max(2, min(8, os.cpu_count() or 2))) as pool:
        futures = {name: pool.submit(_run, argv, files) for name, argv in cases.items()}
        return {name: fut.result() for name, fut in futures.items()}


@pytest.fixture
def cli(files, capsys, monkeypatch):
    """Run ``llkgen.cli.main`` in-process on argv (file names resolved in ``files``); returns a
    CompletedProcess. An exception other than SystemExit propagates: that is a traceback."""
    def run(*argv: str) -> subprocess.CompletedProcess:
        argv = [str(files / a) if a in FILES or a.endswith(".json") else a for a in argv]
        return subprocess.CompletedProcess(argv, *run_cli_in_process(argv, monkeypatch, capsys))

    return run


def _flat(text: str) -> str:
    """Help text without rich's box drawing and line wrapping."""
    for ch in "│╭╮╰╯─":
        text = text.replace(ch, " ")
    return " ".join(text.split())


# -- show / moves -----------------------------------------------------------------------------------
SHOW_DEMO = "# demo-1: 3x4, border=on, gravity=none\n1 2 . 2\n# . . 1\n3 . . 3\n"


def test_show(runs):
    r = runs["show"]
    assert (r.returncode, r.stdout, r.stderr) == (0, SHOW_DEMO, "")


def test_show_through_console_script(runs):
    r = runs["show-script"]
    assert (r.returncode, r.stdout, r.stderr) == (0, SHOW_DEMO, "")


def test_show_without_id_uses_file_name(cli):
    r = cli("show", "stuck.json")
    assert (r.returncode, r.stdout) == (0, "# stuck.json: 2x2, border=off, gravity=down\n1 2\n2 1\n")


def test_moves_text(runs):
    r = runs["moves"]
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout == (
        "type 2: [0, 1] [0, 3]  via [0, 1] -> [0, 3]\n"
        "type 3: [2, 0] [2, 3]  via [2, 0] -> [2, 3]\n"
        "2 removable pairs\n"
    )


def test_moves_json_exact(runs):
    r = runs["moves-json"]
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout.count("\n") == 1
    assert json.loads(r.stdout) == {
        "format": "llkgen.moves/1",
        "moves": [
            {"move": [[0, 1], [0, 3]], "path": [[0, 1], [0, 3]]},
            {"move": [[2, 0], [2, 3]], "path": [[2, 0], [2, 3]]},
        ],
        "tiles_left": 6,
    }


def test_moves_json_uses_ring_coordinates(runs):
    r = runs["moves-ring-json"]
    assert r.returncode == 0
    assert json.loads(r.stdout)["moves"] == [
        {"move": [[0, 0], [0, 2]], "path": [[0, 0], [-1, 0], [-1, 2], [0, 2]]},
        {"move": [[0, 1], [0, 3]], "path": [[0, 1], [-1, 1], [-1, 3], [0, 3]]},
    ]


def test_moves_none_on_a_dead_board_exits_3(cli):
    # tiles left and no pair removable: dead, exit 3, as moves --classify says
    r = cli("moves", "stuck.json")
    assert (r.returncode, r.stdout) == (3, "0 removable pairs\n")
    r = cli("moves", "stuck.json", "--json")
    assert (r.returncode, r.stdout) == (3, '{"format": "llkgen.moves/1", "moves": [], "tiles_left": 4}\n')


def test_moves_none_on_a_cleared_board_exits_0(cli):
    r = cli("moves", "cleared.json")
    assert (r.returncode, r.stdout) == (0, "0 removable pairs\n")
    r = cli("moves", "cleared.json", "--json")
    assert (r.returncode, r.stdout) == (0, '{"format": "llkgen.moves/1", "moves": [], "tiles_left": 0}\n')


# -- replay ----------------------------------------------------------------------------------------
def test_replay_valid(runs):
    r = runs["replay-ok"]
    assert (r.returncode, r.stdout, r.stderr) == (0, "OK: all 3 moves are legal and the board is cleared\n", "")


FILES_FOR = {
    "replay-solution-object": "solution-object.json",
    "replay-moves-object": "moves-object.json",
    "replay-level-solution": "level-with-solution.json",
}


@pytest.mark.parametrize("name", ["replay-solution-object", "replay-moves-object", "replay-level-solution"])
def test_replay_reads_solution_from_objects(cli, name):
    r = cli("replay", DEMO, FILES_FOR[name])
    assert r.returncode == 0 and r.stdout.startswith("OK: all 3 moves")


def test_replay_bad_step_names_index(runs):
    r = runs["replay-bad-step"]
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr == "FAILED: move 1: cell [0, 1] is empty\n"


def test_replay_malformed_step(cli):
    r = cli("replay", DEMO, "malformed-move.json")
    assert r.returncode == 1
    assert r.stderr.startswith("FAILED: move 1: expected a pair of cells [[r1, c1], [r2, c2]]")


def test_replay_partial_is_a_failure(cli):
    r = cli("replay", DEMO, "partial.json")
    assert (r.returncode, r.stderr) == (1, "FAILED: all 1 moves are legal but 4 tiles remain\n")


REPLAY_JSON = {"format": "llkgen.replay/2", "ok": True, "cleared": True, "given": 3, "applied": 3, "tiles_left": 0,
               "error_index": None, "reason": None, "error": None}


def test_replay_json_ok(runs):
    r = runs["replay-json-ok"]
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout.count("\n") == 1 and json.loads(r.stdout) == REPLAY_JSON
    assert list(json.loads(r.stdout)) == list(REPLAY_JSON)  # "format" first, then the order documented


@pytest.mark.parametrize("moves, expected", [
    ("bad-step.json", {"ok": False, "cleared": False, "given": 2, "applied": 1, "tiles_left": 4,
                       "error": "move 1: cell [0, 1] is empty", "error_index": 1, "reason": "cell [0, 1] is empty"}),
    ("partial.json", {"ok": True, "cleared": False, "given": 1, "applied": 1, "tiles_left": 4,
                      "error": "all 1 moves are legal but 4 tiles remain"}),
])
def test_replay_json_failures_exit_1_with_the_step_and_reason(cli, moves, expected):
    r = cli("replay", DEMO, moves, "--json")
    assert (r.returncode, r.stderr) == (1, "")
    assert json.loads(r.stdout) == {**REPLAY_JSON, **expected}


def test_replay_json_bad_moves_file_is_an_error(cli):
    r = cli("replay", DEMO, "moves-number.json", "--json")
    assert (r.returncode, r.stdout) == (1, "") and r.stderr.startswith("Error: ")


def test_replay_json_without_a_stored_solution_prints_its_document(cli, schema_validator):
    # Nothing to check: the document of replaying no move, whose error says why, exit 1.
    r = cli("replay", DEMO, "--json")
    assert (r.returncode, r.stderr) == (1, "")
    doc = json.loads(r.stdout)
    schema_validator("replay").validate(doc)
    message = f'{DEMO}: no stored solution: expected a list of moves in "solution" (or give a MOVES.json file)'
    assert doc == {**REPLAY_JSON, "cleared": False, "given": 0, "applied": 0, "tiles_left": 6, "error": message}
    assert cli("replay", DEMO).stderr == f"Error: {message}\n"  # the text form's error, as before


def test_replay_bad_moves_file(runs):
    r = runs["replay-moves-number"]
    assert r.returncode == 1 and r.stdout == "" and "Traceback" not in r.stderr
    assert r.stderr.startswith("Error: ")
    assert "moves-number.json: expected a list of moves [[r1, c1], [r2, c2]], found int" in r.stderr


@pytest.mark.parametrize(
    "argv, needle",
    [
        (("moves-number.json",), "moves-number.json: expected a list of moves [[r1, c1], [r2, c2]], found int"),
        (("moves-no-key.json",), "moves-no-key.json: expected a list of moves or an object with 'solution'"),
        (("nope.json",), "nope.json: no such file"),
        (("bad.json",), "bad.json: bad JSON at line 2 column 1"),
    ],
)
def test_replay_bad_moves_files_in_process(cli, argv, needle):
    r = cli("replay", DEMO, *argv)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.startswith("Error: ") and needle in r.stderr


def test_replay_bad_level_file(cli, files):
    r = cli("replay", "odd.json", DEMO_MOVES)
    assert r.returncode == 1
    assert r.stderr.startswith(f"Error: {files / 'odd.json'}: level.grid: every tile type must occur")


# -- bad level files ----------------------------------------------------------------------------------
@pytest.mark.parametrize("name, message", VALIDATION, ids=[v[0] for v in VALIDATION])
@pytest.mark.parametrize("cmd", ["show", "moves", "replay"])
def test_bad_level_file(cli, files, cmd, name, message):
    argv = [cmd, name] + ([DEMO_MOVES] if cmd == "replay" else [])
    r = cli(*argv)
    assert r.returncode == 1
    assert r.stdout == ""
    assert r.stderr == f"Error: {files / name}: {message}\n"


@pytest.mark.parametrize("name", SUBPROCESS_VALIDATION)
def test_bad_level_file_subprocess(runs, files, name):
    r = runs[f"show:{name}"]
    message = dict(VALIDATION)[name]
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr == f"Error: {files / name}: {message}\n"


def test_huge_integer_file_gives_error_not_traceback(runs):
    r = runs["bigint"]
    assert r.returncode == 1 and "Traceback" not in r.stderr and r.stderr.startswith("Error: ")


# -- usage and help -------------------------------------------------------------------------------------
USAGE = [
    ("no-command", "No such command 'frobnicate'"),
    ("missing-arg", "Missing argument"),
    ("bad-option", "No such option: --yaml"),
]


@pytest.mark.parametrize("name, needle", USAGE)
def test_usage_errors_exit_2(runs, name, needle):
    r = runs[name]
    assert r.returncode == 2 and r.stdout == ""
    assert "Usage:" in r.stderr and needle in _flat(r.stderr) and "Traceback" not in r.stderr


def test_extra_argument_is_a_usage_error(cli):
    r = cli("show", DEMO, DEMO)
    assert r.returncode == 2 and "Got unexpected extra argument" in _flat(r.stderr)


def _help_checks(r):
    assert r.returncode == 0
    text = _flat(r.stdout)
    assert "Exit codes: 0 ok / solvable; 1 invalid input or failed check; 2 usage error; " \
           "3 unsolvable; 4 unknown (a budget ran out); 130 interrupted (Ctrl-C); 143 terminated." in text
    for command in ("show", "moves", "replay", "--version"):
        assert command in text


def test_help_mentions_exit_codes(runs):
    _help_checks(runs["help"])


def test_short_help_flag(cli):
    _help_checks(cli("-h"))


def help_examples() -> dict[str, str]:
    """command -> the example its help text gives (the docstring's ``Example:`` line)."""
    from typer.main import get_command

    from llkgen.cli import app

    out = {}
    for name, command in get_command(app).commands.items():
        found = re.findall(r"^\s*Example: (.+)$", command.help or "", re.M)
        assert len(found) == 1, f"{name}: expected one example in its help, found {found}"
        out[name] = found[0]
    return out


# The order a new user meets them in: each example may use what the ones before it wrote.
EXAMPLE_ORDER = ["init", "make", "verify", "grade", "view", "render", "show", "moves", "solve", "hint",
                 "reshuffle", "replay", "merge", "schema", "calibrate"]
#: What merge's help tells the reader to run before its example (the shards it merges), and
#: calibrate's pack (its plays are the studio's: simulated here, tests/plays.py).
BEFORE_EXAMPLE = {"merge": [["make", "--config", "easy", "--shard", "0/2", "-q"],
                            ["make", "--config", "easy", "--shard", "1/2", "-q"]],
                  "calibrate": [["make", "--config", "medium", "--count", "24", "-q"]]}


def test_every_command_help_shows_its_example(cli):
    examples = help_examples()
    assert sorted(examples) == sorted(EXAMPLE_ORDER)
    for name, example in examples.items():
        assert shlex.split(example)[:2] == ["llkgen", name]
        r = cli(name, "--help")
        assert r.returncode == 0 and f"Example: {example}" in _flat(r.stdout)


def test_help_examples_run_as_printed_in_an_empty_directory(tmp_path):
    # Only what a wheel gives a user: no configs/ or tests/data/ in reach.
    examples = help_examples()
    made = None
    for name in EXAMPLE_ORDER:
        for argv in BEFORE_EXAMPLE.get(name, []):
            assert _run(argv, tmp_path).returncode == 0, argv
        if name == "merge":
            made = (tmp_path / "output" / "easy.json").read_bytes()
        if name == "calibrate":
            simulated_plays(tmp_path / "output" / "medium.json", tmp_path / "plays.csv")
        r = _run(shlex.split(examples[name])[1:], tmp_path)
        assert r.returncode == 0, (examples[name], r.stdout, r.stderr)
    assert (tmp_path / "my-levels.yaml").is_file() and (tmp_path / "output" / "easy.html").is_file()
    # merge rewrote the pack make wrote, with the same bytes
    assert (tmp_path / "output" / "easy.json").read_bytes() == made


#: The flags sibling commands share, where each has them (issue 20: --json, -q, --budget, --nodes).
SHARED_FLAGS = {
    "init": set(), "show": set(), "schema": set(),
    "moves": {"--json", "--nodes", "--budget"},
    "hint": {"--json", "--nodes", "--budget"},
    "reshuffle": {"--json", "--nodes", "--budget", "-q"},
    "replay": {"--json", "-q"},
    "solve": {"--json", "--nodes", "--budget"},
    "render": {"--budget", "-q"},
    "view": {"--budget", "-q"},
    "make": {"--json", "--budget", "-q"},
    "merge": {"--json", "--budget", "-q"},
    "verify": {"--json", "--nodes", "--budget", "-q"},
    "grade": {"--json", "--budget", "-q"},
    "calibrate": {"--json"},
}


def test_sibling_commands_share_their_flags_and_their_help():
    from typer.main import get_command

    from llkgen.cli import app, options

    commands = get_command(app).commands
    assert sorted(commands) == sorted(SHARED_FLAGS)
    for name, command in commands.items():
        opts = {opt: p for p in command.params for opt in p.opts}
        assert {f for f in ("--json", "--nodes", "--budget", "-q") if f in opts} == SHARED_FLAGS[name], name
        if "-q" in opts:
            assert opts["-q"] is opts.get("--quiet")
            # verify -q still lists what is not certified: its own text, on its option
            assert opts["-q"].help == options.QUIET_HELP or name == "verify", name
        if "--budget" in opts:
            assert opts["--budget"].metavar == "SECONDS", name
            assert options.BUDGET_HELP in opts["--budget"].help, name
        if "--nodes" in opts:
            # verify's nodes default to each level's recorded budget: its own text, on its option
            assert options.NODES_HELP in opts["--nodes"].help or name == "verify", name
        if "--jobs" in opts:
            assert options.JOBS_HELP in opts["--jobs"].help, name
        if "--json" in opts:
            assert opts["--json"].help == options.json_help(name), name


def test_quiet_prints_nothing_but_errors_and_failures(cli, tmp_path):
    r = cli("replay", DEMO, DEMO_MOVES, "-q")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    r = cli("replay", DEMO, "bad-step.json", "-q")
    assert (r.returncode, r.stdout, r.stderr) == (1, "", "FAILED: move 1: cell [0, 1] is empty\n")
    r = cli("render", DEMO, "--out", str(tmp_path / "svg"), "--solution", "-q")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    assert sorted(p.name for p in (tmp_path / "svg").iterdir()) == ["demo-1.solution.svg", "demo-1.svg"]
    r = cli("view", PERFT, "--out", str(tmp_path / "v.html"), "--limit", "1", "-q")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "") and (tmp_path / "v.html").is_file()
    r = cli("view", PERFT, "--out", str(tmp_path / "v.html"), "--limit", "1")
    assert r.stderr.startswith("note: ") and r.stdout.startswith("viewer written to ")
    r = cli("reshuffle", "stuck.json", "--seed", "1", "--out", str(tmp_path / "r.json"), "-q")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "") and (tmp_path / "r.json").is_file()


def test_shell_completion_is_offered_and_completes(cli):
    text = _flat(cli("--help").stdout)
    assert "--install-completion" in text and "--show-completion" in text
    # What bash's completion function asks the installed command, and its answers.
    for words, cword, expected in (("llkgen mo", "1", ["moves"]), ("llkgen moves --cl", "2", ["--classify"])):
        env = {**os.environ, "_LLKGEN_COMPLETE": "complete_bash", "COMP_WORDS": words, "COMP_CWORD": cword}
        r = subprocess.run([_console_script()], capture_output=True, text=True, env=env, timeout=HANG_SECONDS)
        assert (r.returncode, r.stdout.split(), r.stderr) == (0, expected, ""), words


def test_version(cli):
    from importlib.metadata import version

    # The installed metadata and the package agree: the version is kept in one place. The core
    # is either: an editable install runs it from its sources, a wheel compiled (see setup.py).
    r = cli("--version")
    assert (r.returncode, r.stderr) == (0, "")
    assert re.fullmatch(rf"llkgen {re.escape(version('llkgen'))} \(search core: (compiled|pure Python), "
                        r"(with|without) the C gravity search, (with|without) the C model players\)\n", r.stdout)


def test_version_through_the_entry_point(runs, cli):
    # The console script and python -m answer it in llkgen.entry, with the CLI's bytes.
    expected = cli("--version").stdout
    for name in ("version-script", "version-module"):
        r = runs[name]
        assert (r.returncode, r.stdout, r.stderr) == (0, expected, ""), name


def test_version_imports_no_cli_framework_and_not_the_core():
    code = ("import sys; sys.argv = ['llkgen', '--version']; from llkgen.entry import main; main(); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('typer', 'click', 'rich', 'numpy') "
            "or m in ('llkgen.cli', 'llkgen.game.grid')))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG_SECONDS)
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout.splitlines()[1] == "[]"


def test_the_core_is_told_without_importing_it_as_importing_would_tell_it():
    from llkgen._version import search_core
    from llkgen.game import grid

    assert search_core() == ("pure Python" if grid.__file__.endswith(".py") else "compiled")


# -- output paths ---------------------------------------------------------------------------------------
EASY = str(ROOT / "configs" / "easy.yaml")
PERFT = str(DATA / "perft.json")
# command -> argv with OUT where the output path goes
WRITERS = {
    "make": ["make", "--config", EASY, "--count", "1", "--jobs", "1", "--out", "OUT"],
    "view": ["view", PERFT, "--out", "OUT"],
    "render": ["render", DEMO, "--out", "OUT"],
    "verify": ["verify", DEMO, "--jobs", "1", "--junit", "OUT"],
}


def _bad_outputs(tmp: Path) -> dict[str, tuple[Path, str]]:
    """name -> (output path, the reason the Error line must give)."""
    (tmp / "a-dir").mkdir()
    (tmp / "a-file").write_text("keep me")
    return {
        "directory": (tmp / "a-dir", "is a directory, expected a file name"),
        "under-a-file": (tmp / "a-file" / "sub" / "out", f"{tmp / 'a-file'} is a file, expected a directory"),
        "name-too-long": (tmp / ("x" * 256), "file name too long: 256 bytes, this file system allows 255"),
    }


@pytest.mark.parametrize("bad", ["directory", "under-a-file", "name-too-long"])
@pytest.mark.parametrize("cmd", list(WRITERS))
def test_unwritable_output_is_one_error_line(cli, tmp_path, cmd, bad):
    out, reason = _bad_outputs(tmp_path)[bad]
    argv = [a if a != "OUT" else str(out) for a in WRITERS[cmd]]
    if cmd == "render" and bad == "directory":
        (out / "demo-1.svg").mkdir()  # render writes into a directory: block the file it writes
        out = out / "demo-1.svg"
    r = cli(*argv)
    assert r.returncode == 1, r.stderr
    assert r.stderr.startswith(f"Error: {out}: cannot write: {reason}"), r.stderr
    assert len(r.stderr.splitlines()) == 1
    assert (tmp_path / "a-file").read_text() == "keep me"


@pytest.mark.parametrize("cmd", ["make", "view", "verify"])
def test_an_output_name_of_250_bytes_is_written(cli, tmp_path, cmd):
    out = tmp_path / ("y" * 245 + ".out")
    r = cli(*[a if a != "OUT" else str(out) for a in WRITERS[cmd]])
    assert r.returncode == 0, r.stderr
    assert out.is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == [out.name]


# -- text a UTF-8 terminal or XML cannot carry -----------------------------------------------------------
# JSON lets an id hold a lone surrogate or any control character; a directory may hold a file
# whose name is not UTF-8. Every command must still run, and what it writes must be well formed.
SURROGATE, CONTROLS = "odd-\ud800", "ctl-\x00-\x01-\x1b[31m"


def _odd_pack(name: str, ids: list[str]) -> dict:
    demo = json.loads(Path(DEMO).read_text())
    levels = [{**demo, "id": i, "solution": SOLUTION} for i in ids]
    return {"format": "llkgen.pack/1", "name": name, "levels": levels}


@pytest.fixture(scope="module")
def odd(tmp_path_factory) -> tuple[Path, dict[str, subprocess.CompletedProcess]]:
    tmp = tmp_path_factory.mktemp("odd")
    # json.dumps writes the surrogate and the control characters as \u escapes: valid JSON.
    (tmp / "pack.json").write_text(json.dumps(_odd_pack(SURROGATE, [SURROGATE, CONTROLS])))
    (tmp / "level.json").write_text(json.dumps({**LEVEL, "id": SURROGATE}))
    (tmp / "dir").mkdir()
    with open(os.path.join(os.fsencode(tmp / "dir"), b"bad\xff.json"), "w") as f:
        f.write(json.dumps({**LEVEL, "id": "plain", "solution": SOLUTION}))
    cases = {
        "show": ["show", "level.json"],
        "render": ["render", "pack.json", "--out", "svg", "--solution"],
        "view": ["view", "pack.json", "--out", "view.html"],
        "verify-json": ["verify", "pack.json", "dir", "--json", "--jobs", "1"],
        "verify-junit": ["verify", "pack.json", "dir", "--junit", "junit.xml", "--jobs", "1"],
    }
    with ThreadPoolExecutor(max_workers=3) as pool:
        futures = {name: pool.submit(_run, argv, tmp) for name, argv in cases.items()}
        return tmp, {name: fut.result() for name, fut in futures.items()}


@pytest.mark.parametrize("case", ["show", "render", "view", "verify-json", "verify-junit"])
def test_odd_text_never_gives_a_traceback(odd, case):
    _, runs = odd
    r = runs[case]
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr


def test_odd_text_is_shown_escaped_on_the_terminal(odd):
    _, runs = odd
    assert runs["show"].stdout.startswith("# odd-\\ud800: 3x4")
    lines = runs["verify-junit"].stdout.splitlines()
    assert any("pack.json#ctl-\\x00-\\x01-\\x1b[31m: solvable" in line for line in lines), lines
    assert any("dir/bad\\xff.json: solvable" in line for line in lines), lines
    assert not any(ch in runs["verify-junit"].stdout for ch in "\x00\x01\x1b")


def test_odd_text_in_the_json_report_round_trips(odd):
    _, runs = odd
    report = json.loads(runs["verify-json"].stdout)
    labels = [lv["label"] for lv in report["levels"]]
    # Ids are reported exactly (JSON escapes carry them); file names as printable text.
    assert labels == ["pack.json#" + SURROGATE, "pack.json#" + CONTROLS, "dir/bad\\xff.json"]
    assert report["exit_code"] == 0


def test_odd_text_gives_well_formed_xml(odd):
    tmp, _ = odd
    root = ET.parse(tmp / "junit.xml").getroot()
    names = [case.get("name") for case in root.iter("testcase")]
    assert names == ["pack.json#odd-\\ud800", "pack.json#ctl-\\x00-\\x01-\\x1b[31m", "dir/bad\\xff.json"]
    svgs = sorted((tmp / "svg").iterdir())
    assert len(svgs) == 4
    titles = set()
    for svg in svgs:
        root = ET.parse(svg).getroot()  # raises on anything not well formed
        titles.add(root.find("{http://www.w3.org/2000/svg}title").text)
    assert titles == {"llkgen level odd-\\ud800", "llkgen level ctl-\\x00-\\x01-\\x1b[31m"}


def test_odd_text_in_the_viewer_is_exact_data_and_escaped_markup(odd):
    tmp, _ = odd
    html = (tmp / "view.html").read_text("utf-8")
    assert "<title>odd-\\ud800 \u2013 llkgen viewer</title>" in html
    data = html.split('<script type="application/json" id="llk-data">', 1)[1].split("</script>", 1)[0]
    pack = json.loads(data)["pack"]
    assert [lv["id"] for lv in pack["levels"]] == [SURROGATE, CONTROLS]


def test_render_never_overwrites_one_preview_with_another(cli, tmp_path):
    (tmp_path / "p.json").write_text(json.dumps(_odd_pack("p", ["a", "a.solution"])))
    r = cli("render", str(tmp_path / "p.json"), "--out", str(tmp_path / "svg"), "--solution")
    assert r.returncode == 0, r.stderr
    written = r.stdout.splitlines()[:-1]
    assert r.stdout.splitlines()[-1] == f"4 SVG files written to {tmp_path / 'svg'}"
    assert sorted(Path(p).name for p in written) == sorted(p.name for p in (tmp_path / "svg").iterdir())
    assert len(set(written)) == 4


# -- init, shipped specs, PACK#ID -------------------------------------------------------------------------
def test_init_writes_a_commented_spec_that_makes_a_pack(cli, tmp_path):
    from llkgen.generation.spec import load_spec

    r = cli("init", "castle", "--out", str(tmp_path / "specs"))
    path = tmp_path / "specs" / "castle.yaml"
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout == f"wrote {path}: edit it, then build it with: llkgen make --config {path}\n"
    spec = load_spec(path)
    assert (spec.name, spec.export.path) == ("castle", "output/castle.json")
    easy = (ROOT / "configs" / "easy.yaml").read_text()
    text = path.read_text()
    # The easy spec's every comment, with only the title, the name and the output path changed.
    assert len(text.splitlines()) == len(easy.splitlines()) + 1
    assert sum(a != b for a, b in zip(text.splitlines()[2:], easy.splitlines()[1:])) == 2
    r = cli("make", "--config", str(path), "--count", "1", "--jobs", "1", "-q", "--out", str(tmp_path / "c.json"))
    assert r.returncode == 0 and json.loads((tmp_path / "c.json").read_text())["name"] == "castle"


def test_init_never_overwrites_and_refuses_a_bad_name(cli, tmp_path):
    (tmp_path / "levels.yaml").write_text("mine\n")
    r = cli("init", "--out", str(tmp_path))
    assert r.returncode == 1
    assert r.stderr.startswith(f"Error: {tmp_path / 'levels.yaml'}: already exists")
    assert (tmp_path / "levels.yaml").read_text() == "mine\n"
    r = cli("init", "a b", "--out", str(tmp_path))
    assert r.returncode == 2 and "expected a file-name-safe name" in _flat(r.stderr)


def test_a_level_of_a_pack_is_named_by_its_verify_label(cli, tmp_path):
    pack = tmp_path / "p.json"
    pack.write_text(json.dumps(_odd_pack("p", ["first", "second"])))
    assert cli("show", f"{pack}#second").stdout.startswith("# second: 3x4")
    assert json.loads(cli("moves", f"{pack}#first", "--json").stdout)["moves"]
    assert cli("solve", f"{pack}#first").returncode == 0
    r = cli("show", f"{pack}#third")
    assert r.returncode == 1
    assert r.stderr == f"Error: {pack}: no level 'third': expected the id of one of its 2 levels (first, second)\n"
    # A file whose own name holds '#' is read as that file.
    odd_name = tmp_path / "a#first"
    odd_name.write_text(json.dumps({**LEVEL, "id": "hash"}))
    assert cli("show", str(odd_name)).stdout.startswith("# hash: ")


def test_replay_without_moves_checks_the_stored_solution(cli, tmp_path):
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps({**LEVEL, "solution": SOLUTION}))
    bad.write_text(json.dumps({**LEVEL, "solution": SOLUTION[:1]}))
    assert cli("replay", str(good)).stdout == "OK: all 3 moves are legal and the board is cleared\n"
    assert cli("replay", str(bad)).returncode == 1
    r = cli("replay", DEMO)
    assert r.returncode == 1 and r.stderr.startswith(f"Error: {DEMO}: no stored solution")


def test_engine_choices_are_the_verifiers_engines(cli):
    from llkgen.cli import Engine
    from llkgen.verifier import ENGINES

    assert [e.value for e in Engine] == list(ENGINES)
    assert "<auto|search|cpsat|baseline>" in _flat(cli("solve", "--help").stdout)
    r = cli("solve", DEMO, "--engine", "fast")
    assert r.returncode == 2 and "Invalid value for '--engine'" in _flat(r.stderr)
    assert "expected one of auto, search, cpsat, baseline, found 'fast'" in _flat(r.stderr)
    assert "Value error" not in _flat(r.stderr)


# -- solve: seconds first ---------------------------------------------------------------------------
@pytest.mark.parametrize(("argv", "limits"), [
    ([], {"nodes": 200_000, "seconds": None}),
    (["--budget", "5"], {"nodes": None, "seconds": 5.0}),
    (["--budget", "5", "--nodes", "7"], {"nodes": 7, "seconds": 5.0}),
    (["--nodes", "7"], {"nodes": 7, "seconds": None}),
])
def test_solve_with_a_budget_in_seconds_has_no_node_limit_unless_asked(cli, argv, limits):
    # A node limit that stops the search long before the seconds given would surprise: with
    # --budget alone the seconds are the limit; --nodes still sets one when given.
    r = cli("solve", "level-with-solution.json", "--json", *argv)
    assert r.returncode == 0 and json.loads(r.stdout)["budget"] == limits
