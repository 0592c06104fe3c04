"""The model players in C on big boards: moves updated after each move, against listed afresh.

``llkgen/analysis/_players.c`` updates a playthrough's moves after each move on boards of
``INCREMENTAL_TILES`` / ``INCREMENTAL_GRAVITY_TILES`` tiles or more, rather than listing every
linkable same-type pair again. The baseline is the same source compiled with both thresholds
out of reach (``-DINCREMENTAL_GRAVITY_TILES=1000000``, and the same for the other), so every
step lists the moves afresh. Both are built here, with the C compiler Python was built with,
into a temporary directory, and run in this process, interleaved, with the same random numbers;
each row checks they clear the same playthroughs. CPU ms per playthrough (``time.process_time``),
averaged over the five models.

Boards: full boards of 4 tiles a type (the specs' shape), and full boards of one type (every
same-type pair a candidate: the worst case, up to 62x62, the largest the C players take).

    python benchmarks/players_big_bench.py
    python benchmarks/players_big_bench.py --sides 32,48,62 --runs 1
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1] / "llkgen" / "analysis" / "_players.c"
GRAVITY = {"none": 0, "down": 1, "up": 2, "left": 3, "right": 4}


def build(out: Path, name: str, defines: list[str]):
    """``_players.c`` compiled with ``defines`` into ``out/name``, loaded as a module."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    target = out / name / f"_players{suffix}"
    target.parent.mkdir()
    cc = (sysconfig.get_config_var("CC") or "cc").split()
    subprocess.run([*cc, "-shared", "-fPIC", "-O2", f"-I{sysconfig.get_paths()['include']}",
                    *(f"-D{d}" for d in defines), str(SOURCE), "-o", str(target)], check=True)
    spec = importlib.util.spec_from_file_location("_players", target)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def boards(sides: list[int], runs: int):
    rng = random.Random(20261203)
    for rows, cols in ((6, 8), (8, 12), (10, 16), (12, 18), (16, 30)):
        for gravity in ("none", "down", "left"):
            flat = [1 + k // 4 for k in range(rows * cols)]
            rng.shuffle(flat)
            yield f"{rows}x{cols}, 4 a type, {gravity}", rows, cols, flat, gravity, 8 * runs
    for n in sides:
        for gravity in ("none", "down"):
            yield f"{n}x{n}, one type, {gravity}", n, n, [1] * (n * n), gravity, runs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sides", default="32,48", help="sides of the one-type boards (62 takes minutes listed afresh)")
    ap.add_argument("--runs", type=int, default=1, help="playthroughs per model (x8 on the small boards)")
    args = ap.parse_args()
    sides = [int(s) for s in args.sides.split(",") if s]
    with tempfile.TemporaryDirectory() as tmp:
        never = ["INCREMENTAL_TILES=1000000", "INCREMENTAL_GRAVITY_TILES=1000000"]
        mods = {"updated": build(Path(tmp), "updated", []), "afresh": build(Path(tmp), "afresh", never)}
        print(f"python {sys.version.split()[0]}; CPU ms per playthrough, mean of the five models")
        print("| board | listed afresh | updated | ratio |")
        print("|---|---:|---:|---:|")
        for name, rows, cols, flat, gravity, runs in boards(sides, args.runs):
            cpu = dict.fromkeys(mods, 0.0)
            cleared = dict.fromkeys(mods, 0)
            for model in range(5):
                for way in (("afresh", "updated") if model % 2 else ("updated", "afresh")):
                    t0 = time.process_time()
                    cleared[way] += mods[way].playthroughs(rows, cols, flat, GRAVITY[gravity], 1, model, 12345, 0, runs)
                    cpu[way] += time.process_time() - t0
            assert cleared["afresh"] == cleared["updated"], (name, cleared)
            a, u = (cpu[w] / (5 * runs) * 1000 for w in ("afresh", "updated"))
            print(f"| {name} | {a:.2f} | {u:.2f} | {a / u:.2f} |", flush=True)


if __name__ == "__main__":
    main()
