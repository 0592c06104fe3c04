"""The C modules of this tree against those of a git ref: same results, and the CPU each takes.

A change to the C that should not change what it computes (a shared unit, a split function,
asserts that compile out) must not slow it either. Both trees' ``_gravity_search.c`` and
``_players.c`` are compiled here the way setup.py builds them (Python's own compiler and flags,
``NDEBUG`` on) into a temporary directory, loaded side by side, and run interleaved on the same
inputs; every row checks that the two agree exactly (the search's status, node count and
witness; the players' cleared count).

* gravity: the C search from the root on each gravity board of the real-board corpus, to a
  node budget (``--nodes``), summed;
* players: every model's playthroughs of full boards of 4 tiles a type (the specs' shape) with
  and without gravity, and of a 32x32 board of one type (moves updated after each move);
* open (with ``--open-seed``): the C search on the first ``--open-boards`` boards of each open
  set of ``gravity_pruning_bench.py --sets open --seed N`` (random full 12x18 and 10x16 boards),
  to the same node budget: long searches, whose table of dead positions grows large.

CPU seconds (``time.process_time``); ratio = this tree / the ref (below 1: faster).

    python benchmarks/native_build_bench.py --ref main --corpus ../shared/real-boards/all.jsonl
    python benchmarks/native_build_bench.py --ref main --nodes 20000 --repeat 3
    python benchmarks/native_build_bench.py --ref main --open-seed 555001 --open-boards 2 --nodes 3000000
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import shlex
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

from gravity_pruning_bench import REAL, real_boards  # this folder: the corpus loader
from gravity_relaxations import open_sets  # this folder: the open sets

ROOT = Path(__file__).resolve().parents[1]
SOURCES = {"_gravity_search": "llkgen/verifier/_gravity_search.c", "_players": "llkgen/analysis/_players.c"}
GRAVITY = {"none": 0, "down": 1, "up": 2, "left": 3, "right": 4}


def checkout(ref: str, dest: Path) -> Path:
    """The ``llkgen/`` of ``ref`` (its C sources and headers) unpacked in dest."""
    data = subprocess.run(["git", "archive", ref, "llkgen"], cwd=ROOT, check=True, capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(dest, filter="data")
    return dest


def build(tree: Path, out: Path) -> dict:
    """Both modules of tree, compiled as setup.py does, loaded (a name each, apart from the package)."""
    out.mkdir()
    ldshared = shlex.split(sysconfig.get_config_var("LDSHARED"))
    flags = shlex.split(sysconfig.get_config_var("CFLAGS")) + shlex.split(sysconfig.get_config_var("CCSHARED"))
    mods = {}
    for name, source in SOURCES.items():
        target = out / f"{name}{sysconfig.get_config_var('EXT_SUFFIX')}"
        subprocess.run([*ldshared, *flags, f"-I{sysconfig.get_paths()['include']}", str(tree / source), "-o",
                        str(target)], check=True)
        spec = importlib.util.spec_from_file_location(name, target)
        assert spec is not None and spec.loader is not None
        mods[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mods[name])
    return mods


def gravity_cases(corpus: Path, nodes: int):
    for _, board, rules in real_boards(corpus):
        args = (board.rows, board.cols, board.cells, GRAVITY[str(rules.gravity)], rules.border, nodes, -1.0, 256)
        yield args


def open_cases(seed: int, boards: int, nodes: int):
    for sets in open_sets(seed, None).values():
        for _, board, rules in sets[:boards]:
            yield (board.rows, board.cols, board.cells, GRAVITY[str(rules.gravity)], rules.border, nodes, -1.0, 256)


def players_cases():
    rng = random.Random(20261203)
    for rows, cols in ((8, 12), (10, 16), (16, 30)):
        for gravity in ("none", "down", "left"):
            flat = [1 + k // 4 for k in range(rows * cols)]
            rng.shuffle(flat)
            for model in range(5):
                yield (rows, cols, flat, GRAVITY[gravity], 1, model, 12345, 0, 16)
    for gravity in ("none", "down"):
        for model in range(5):
            yield (32, 32, [1] * 1024, GRAVITY[gravity], 1, model, 12345, 0, 1)


def race(mods: dict, fn: str, cases: list, repeat: int) -> dict:
    """CPU seconds per tree over the cases, interleaved (which tree goes first alternates)."""
    cpu = dict.fromkeys(mods, 0.0)
    for r in range(repeat):
        for i, args in enumerate(cases):
            results = {}
            for tree in (sorted(mods) if (i + r) % 2 else sorted(mods, reverse=True)):
                f = getattr(mods[tree][fn[0]], fn[1])
                t0 = time.process_time()
                results[tree] = f(*args)
                cpu[tree] += time.process_time() - t0
            a, b = results.values()
            assert a == b, (fn, args[:2], a, b)
    return cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ref", default="main", help="the git ref to compare with (default: main)")
    ap.add_argument("--nodes", type=int, default=50_000, help="the gravity search's node budget per board")
    ap.add_argument("--repeat", type=int, default=2, help="passes over the cases")
    ap.add_argument("--corpus", type=Path, default=REAL, help="the real boards (default: %(default)s)")
    ap.add_argument("--open-seed", type=int, default=None, help="also the open sets of this seed")
    ap.add_argument("--open-boards", type=int, default=2, help="boards of each open set (default: 2)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        mods = {args.ref: build(checkout(args.ref, Path(tmp) / "ref"), Path(tmp) / "ref-build"),
                "this tree": build(ROOT, Path(tmp) / "tree-build")}
        print(f"python {sys.version.split()[0]}; CPU seconds, {args.repeat} passes, interleaved")
        print(f"| module | cases | {args.ref} | this tree | ratio |")
        print("|---|---:|---:|---:|---:|")
        rows = [(f"gravity search, real gravity boards, {args.nodes} nodes", ("_gravity_search", "search"),
                 list(gravity_cases(args.corpus, args.nodes))),
                ("model players, 8x12 to 16x30 and 32x32", ("_players", "playthroughs"), list(players_cases()))]
        if args.open_seed is not None:
            rows.insert(1, (f"gravity search, open sets (seed {args.open_seed}), {args.nodes} nodes",
                            ("_gravity_search", "search"), list(open_cases(args.open_seed, args.open_boards,
                                                                             args.nodes))))
        for label, fn, cases in rows:
            cpu = race(mods, fn, cases, args.repeat)
            ref, tree = cpu[args.ref], cpu["this tree"]
            print(f"| {label} | {len(cases)} | {ref:.2f} | {tree:.2f} | {tree / ref:.3f} |", flush=True)


if __name__ == "__main__":
    main()
