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


def standard_error(cleared: int, runs: int) -> float:
    """The Agresti-Coull standard error of ``cleared / runs`` (see :class:`Estimate`)."""
    p = (cleared + 2) / (runs + 4)
    return math.sqrt(p * (1 - p) / (runs + 4))


__all__ = ["Estimate", "standard_error"]
