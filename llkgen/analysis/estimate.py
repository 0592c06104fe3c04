"""A measured clear rate with its standard error.

It lives apart from :mod:`llkgen.analysis.players` because that module is compiled in the
wheel, and a frozen dataclass compiled that way cannot be unpickled: estimates travel from
worker processes (``llkgen grade --jobs``, ``make --jobs``) inside every measurement, so they
must stay plain Python classes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Estimate:
    """A measured clear rate: ``cleared`` of ``runs`` playthroughs, ``rate = cleared / runs``,
    and ``se`` its standard error by the Agresti-Coull adjustment, ``sqrt(p~ (1 - p~) /
    (runs + 4))`` with ``p~ = (cleared + 2) / (runs + 4)``: never 0, so that 0 of 32 and 32 of
    32 still carry their uncertainty."""

    rate: float
    se: float
    runs: int
    cleared: int

    @classmethod
    def of(cls, cleared: int, runs: int) -> "Estimate":
        return cls(rate=cleared / runs if runs else 0.0, se=standard_error(cleared, runs),
                   runs=runs, cleared=cleared)

    def to_json(self) -> dict:
        return {"rate": round(self.rate, 4), "se": round(self.se, 4), "runs": self.runs}


# Why Agresti-Coull and not a less conservative error. Measured with
# ``scripts/se_calibration.py`` (six repeats of each level against the scatter, 30 to 40 levels
# a spec): Agresti-Coull is honest where levels vary (sd / se 0.96 to 1.04 on medium, gravity
# and the ramp) and conservative where models clear a level always or never (0.59 on easy). The
# Jeffreys posterior sd in its place brought easy to 0.85 and cut its playthroughs from 256 to
# 160, but made medium, gravity and hard optimistic (1.04, 1.09, 1.02). An error that errs low
# is the worse claim. docs/difficulty.md, "Is the reported error honest?", has the tables.
def standard_error(cleared: int, runs: int) -> float:
    """The Agresti-Coull standard error of ``cleared / runs`` (see :class:`Estimate`)."""
    p = (cleared + 2) / (runs + 4)
    return math.sqrt(p * (1 - p) / (runs + 4))


__all__ = ["Estimate", "standard_error"]
