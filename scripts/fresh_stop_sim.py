"""What stopping a fresh measurement early costs a kept score: a simulation of the ramp's
fresh measurement (:func:`llkgen.analysis.difficulty.measure` with a window), with and without
its early stop, and with the ``predictive`` stop in place of the plain one.

The measurement is modelled as a running mean of Gaussian playthroughs, looked at every 32 from
the first round's 160 to the 832 that reach a standard error of 1.5 (what one measurement of
a ramp level takes). A level is kept when the final score lies ``--guard`` se inside a window
of +-5 points (the guard band: by default 1, ``make``'s ``AIMED_GUARD_SE`` for a screened
candidate); the stop looks at the window narrowed by the same band, as ``make`` passes it. For
each true score (points from the window's centre) it prints the share of measurements kept,
the mean kept score minus the true one (the pull that selection puts on a kept score), and the
mean playthroughs.

    python scripts/fresh_stop_sim.py
    python scripts/fresh_stop_sim.py --paths 50000 --seed 3 --guard 0.75
"""

from __future__ import annotations

import argparse

import numpy as np

PRECISION = 1.5
LOOKS = np.arange(160, 833, 32)
WINDOW = 5.0
SETTLED_SE = 2.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--paths", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--guard", type=float, default=1.0, help="the guard band, in standard errors (1)")
    args = ap.parse_args()
    band = WINDOW - args.guard * PRECISION
    rng = np.random.default_rng(args.seed)
    sigma = PRECISION * np.sqrt(LOOKS[-1])  # one playthrough's sd, in points
    se = sigma / np.sqrt(LOOKS)
    spreads = {"no stop": None, "2 se": se, "predictive": np.sqrt(np.maximum(se ** 2 - PRECISION ** 2, 0.0))}
    print("| true score | " + " | ".join(f"{k}: kept, kept − true, playthroughs" for k in spreads) + " |")
    print("|---" * (len(spreads) + 1) + "|")
    for mu in (0.0, 1.0, 2.0, 3.0, 4.0, 4.5, 5.0, 6.0):
        steps = rng.normal(0.0, sigma, (args.paths, len(LOOKS))) * np.sqrt(np.diff(np.r_[0, LOOKS]))
        path = mu + np.cumsum(steps, axis=1) / LOOKS
        final = path[:, -1]
        inside = np.abs(final) <= WINDOW - args.guard * se[-1]
        cells = []
        for spread in spreads.values():
            if spread is None:
                kept, runs = inside, np.full(args.paths, LOOKS[-1])
            else:
                out = np.abs(path[:, :-1]) - SETTLED_SE * spread[:-1] > band
                first = np.where(out.any(axis=1), out.argmax(axis=1), len(LOOKS) - 1)
                kept, runs = inside & ~out.any(axis=1), LOOKS[first]
            pull = final[kept].mean() - mu if kept.any() else float("nan")
            cells.append(f"{100 * kept.mean():.1f}%, {pull:+.2f}, {runs.mean():.0f}")
        print(f"| {mu:g} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
