"""The names of the player ladder, with no imports: what specs, schemas and reports need to
know about it without loading the players (:mod:`llkgen.analysis.players` plays them,
:mod:`llkgen.analysis.difficulty` measures a level with them)."""

from __future__ import annotations

from dataclasses import dataclass

#: The model players, weak to strong.
MODELS: tuple[str, ...] = ("random", "nearest", "lookahead", "careful", "deep")

#: The tier of a level that no model clears reliably: a player needs hints.
HINT = "hint"

#: The tiers, weakest player first: every model, then :data:`HINT`.
TIERS: tuple[str, ...] = (*MODELS, HINT)

#: A model "clears a level reliably" at this clear rate (the tier's threshold).
RELIABLY = 0.8

#: Playthroughs per batch of a measurement (and each model's first batch).
BATCH = 32

#: The models by measured strength, weak to strong: their mean clear rate over a reference set
#: of 60 levels, 12 of each shipped spec, each rate to an se of 0.02 (``python
#: scripts/ladder_order.py --levels 12``; docs/calibration.md, "The ladder in order", has the
#: table): random 0.549, lookahead 0.556, deep 0.570, careful 0.593, nearest 0.615. It is
#: :data:`MODELS`' order except ``nearest``, which clears more often than the filtering models
#: on four of the five specs -- and least often on the ramp's, so no order holds on every
#: level (:class:`Profile` says where it breaks). :data:`MODELS` keeps its order: it names
#: the models' seed streams and the tier a pack stores, which must not change.
STRENGTH: tuple[str, ...] = ("random", "lookahead", "deep", "careful", "nearest")


@dataclass(frozen=True)
class Profile:
    """A level's clear rates in :data:`STRENGTH` order and what they say about its tier.

    ``tier`` (stored in a pack) is the weakest model in :data:`MODELS` order that clears
    reliably. ``ordered_tier`` is the weakest model, in :data:`STRENGTH` order, from which every
    stronger model clears reliably too (:data:`HINT` when the strongest does not): the tier of
    a ladder in order. ``breaks`` are the pairs ``(weaker, stronger)`` where the weaker model
    clears reliably and the stronger does not: the profile is monotone when there are none.
    (The two tiers can differ on a monotone profile too: :data:`MODELS` puts ``nearest``
    second, :data:`STRENGTH` last.)"""

    rates: tuple[tuple[str, float], ...]
    ordered_tier: str
    breaks: tuple[tuple[str, str], ...]

    @property
    def monotone(self) -> bool:
        return not self.breaks

    def to_json(self) -> dict:
        return {"order": [m for m, _ in self.rates], "rates": [round(r, 4) for _, r in self.rates],
                "ordered_tier": self.ordered_tier, "monotone": self.monotone,
                "breaks": [list(b) for b in self.breaks]}

    def text(self) -> str:
        """``"monotone"``, or which weaker models clear reliably where stronger ones do not."""
        if self.monotone:
            return "monotone"
        rate = dict(self.rates)
        parts = []
        for strong in dict.fromkeys(st for _, st in self.breaks):
            weaker = [w for w, st in self.breaks if st == strong]
            parts.append(f"{strong} {rate[strong]:.2f} is not reliable where weaker {', '.join(weaker)} "
                         f"{'is' if len(weaker) == 1 else 'are'}")
        return f"not monotone: {'; '.join(parts)}; tier in strength order {self.ordered_tier}"


def profile(rates: dict[str, float], reliably: float = RELIABLY) -> Profile:
    """The :class:`Profile` of clear ``rates`` (every model of :data:`MODELS`)."""
    ordered = tuple((m, rates[m]) for m in STRENGTH)
    tier = HINT
    for i in range(len(ordered) - 1, -1, -1):  # strongest first: extend while each clears reliably
        if ordered[i][1] < reliably:
            break
        tier = ordered[i][0]
    breaks = tuple((w, s) for i, (w, rw) in enumerate(ordered) if rw >= reliably
                   for s, rs in ordered[i + 1:] if rs < reliably)
    return Profile(ordered, tier, breaks)


__all__ = ["MODELS", "HINT", "TIERS", "RELIABLY", "BATCH", "STRENGTH", "Profile", "profile"]
