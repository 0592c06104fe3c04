"""The names of the player ladder, with no imports: what specs, schemas and reports need to
know about it without loading the players (:mod:`llkgen.analysis.players` plays them,
:mod:`llkgen.analysis.difficulty` measures a level with them)."""

from __future__ import annotations

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

__all__ = ["MODELS", "HINT", "TIERS", "RELIABLY", "BATCH"]
