"""The C modules under their debugging builds: the C-versus-Python tests run on a build with
every ``assert`` on (``-DLLKGEN_CHECK``, ``llkgen/_native/check.h``), and on one under
AddressSanitizer and UndefinedBehaviorSanitizer. A failed assert, an out-of-bounds access, a
use after free or undefined behaviour (an overflowing shift, a signed overflow) aborts the run,
and the test fails with its report.

Each build compiles the two modules into a copy of the package in a temporary directory, with
the flags Python was built with plus the build's own, and runs the tests in a subprocess that
imports that copy (checked first: a test that ran on the regular build would prove nothing).
The installed build is left alone.

ASan's runtime must be the first library in the process, and python is not built with it, so
the sanitizer run preloads it (``LD_PRELOAD``, the path from ``cc -print-file-name``). Leak
detection is off (``ASAN_OPTIONS=detect_leaks=0``): it reports the interpreter's own allocations
still held at exit, which are not the C modules' and not bugs.

Slow (several minutes): ``python -m pytest -m slow tests/project/test_native_checked.py``.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from paths import ROOT

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="builds with the Linux compiler driver"),
]

#: The C modules and their sources (setup.py's native()).
MODULES = {
    "llkgen.verifier._gravity_search": "llkgen/verifier/_gravity_search.c",
    "llkgen.analysis._players": "llkgen/analysis/_players.c",
}
#: The tests that hold the C modules to the Python they replace, move by move and verdict by verdict.
EQUIVALENCE = ["tests/verifier/test_native_gravity.py", "tests/analysis/test_native_players.py",
               "tests/verifier/test_handover.py"]
#: The assert build: what setup.py's checked() adds with LLKGEN_CHECK=1.
CHECK_FLAGS = ["-DLLKGEN_CHECK=1", "-UNDEBUG"]
#: The sanitizer build: every report is an abort, with the frames to read it by.
SANITIZE_FLAGS = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer", "-O1"]
#: Room for the sanitizer run, several times slower than the regular one.
TIMEOUT = 3600


def _compiler() -> list[str]:
    """The command that links an extension module here (Python's own LDSHARED), or a skip."""
    ldshared = shlex.split(sysconfig.get_config_var("LDSHARED") or "")
    if not ldshared or shutil.which(ldshared[0]) is None:
        pytest.skip(f"no C compiler here ({ldshared[:1] or 'LDSHARED unset'})")
    return ldshared


def _build(dest: Path, flags: list[str]) -> Path:
    """A copy of the package in dest with the C modules compiled with flags; the directory to
    put on the path."""
    shutil.copytree(ROOT / "llkgen", dest / "llkgen",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    cflags = [*shlex.split(sysconfig.get_config_var("CFLAGS") or ""),
              *shlex.split(sysconfig.get_config_var("CCSHARED") or ""), f"-I{sysconfig.get_paths()['include']}"]
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    for module, source in MODULES.items():
        out = dest / (module.replace(".", "/") + suffix)
        cmd = [*_compiler(), *cflags, *flags, str(ROOT / source), "-o", str(out)]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, f"{shlex.join(cmd)}\n{r.stderr}"
    return dest


def _env(path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    env.update(PYTHONPATH=str(path), PYTHONDONTWRITEBYTECODE="1", **extra)
    return env


def _python(path: Path, env: dict[str, str], code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=path, env=env, capture_output=True, text=True, timeout=300)


#: Run in the build's environment before the tests: which modules it imports, and from where.
PROBE = """
import llkgen.verifier._gravity_search as g, llkgen.analysis._players as p
maps = open("/proc/self/maps").read()
print(g.__file__, p.__file__, hasattr(g, "check_fault"), "libasan" in maps, "libubsan" in maps)
"""


def _run_equivalence(path: Path, env: dict[str, str]) -> None:
    """The C-versus-Python tests against the build in path (it must be the one imported)."""
    probe = _python(path, env, PROBE)
    assert probe.returncode == 0, probe.stderr[-4000:]
    gravity, players = probe.stdout.split()[:2]
    assert gravity.startswith(str(path)) and players.startswith(str(path)), probe.stdout
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(ROOT),
           *(str(ROOT / t) for t in EQUIVALENCE)]
    r = subprocess.run(cmd, cwd=path, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    report = (r.stdout[-6000:] + "\n" + r.stderr[-6000:]).strip()
    assert r.returncode == 0, report
    assert " passed" in r.stdout and " failed" not in r.stdout, report


def test_the_c_equivalence_tests_pass_with_every_assert_on(tmp_path):
    path = _build(tmp_path, CHECK_FLAGS)
    env = _env(path)
    probe = _python(path, env, PROBE)
    assert probe.returncode == 0 and probe.stdout.split()[2] == "True", probe  # the assert build's entry
    _run_equivalence(path, env)


def test_an_assert_fires_in_the_assert_build(tmp_path):
    """The asserts are live in that build: check_fault() breaks an invariant on purpose (it
    compacts a line the board does not have), and the process aborts with the assert's report."""
    path = _build(tmp_path, CHECK_FLAGS)
    r = _python(path, _env(path), "import llkgen.verifier._gravity_search as g; g.check_fault()")
    assert r.returncode == -signal.SIGABRT, (r.returncode, r.stderr)
    assert "compact_line" in r.stderr and "Assertion" in r.stderr, r.stderr


def _sanitizer_runtime() -> str:
    cc = _compiler()[0]
    found = subprocess.run([cc, "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
    if not os.path.isabs(found) or not os.path.exists(found):
        pytest.skip(f"no AddressSanitizer runtime for {cc} (-print-file-name=libasan.so gave {found!r})")
    return found


def test_the_c_equivalence_tests_pass_under_asan_and_ubsan(tmp_path):
    libasan = _sanitizer_runtime()
    path = _build(tmp_path, SANITIZE_FLAGS)
    env = _env(path, LD_PRELOAD=libasan, ASAN_OPTIONS="detect_leaks=0:abort_on_error=1",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
    probe = _python(path, env, PROBE)
    assert probe.returncode == 0, probe.stderr[-4000:]
    assert probe.stdout.split()[3:] == ["True", "True"], probe.stdout  # both runtimes loaded
    _run_equivalence(path, env)
