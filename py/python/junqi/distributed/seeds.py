"""Per-game seeds: every game of a run is seeded from (run seed, game index) alone.

A game's seeds do not depend on which task, batch or worker plays it, so a run's
output is the same for any number of workers and any batch size.
"""

from __future__ import annotations

import hashlib
from typing import NamedTuple

__all__ = ["GameSeeds", "game_seeds", "SEED_DOMAIN"]

SEED_DOMAIN = b"junqi.distributed/1\x00"
"""The prefix hashed before the run seed and the game index (versioned: a change of
derivation changes this prefix)."""

_U64 = 1 << 64


class GameSeeds(NamedTuple):
    """The two seeds of one game."""

    game: int
    """The referee's seed: ``Game(rules, seed=game)``, then every seat's random setup
    (``deploy_random``, derived from it) — or 翻棋's deal."""
    policy: int
    """The seed of the built-in random player's generator for this game
    (``numpy.random.Generator(numpy.random.PCG64(policy))``)."""


def game_seeds(run_seed: int, index: int) -> GameSeeds:
    """The seeds of game ``index`` of the run seeded ``run_seed``.

    ``sha256(SEED_DOMAIN || run_seed as 8 bytes little-endian || index as 8 bytes
    little-endian)``: the first 8 bytes of the digest (little-endian) are the game's
    seed, the next 8 the random player's.
    """
    if not 0 <= run_seed < _U64:
        raise ValueError(f"run seed {run_seed} is not an unsigned 64-bit integer")
    if not 0 <= index < _U64:
        raise ValueError(f"game index {index} is not an unsigned 64-bit integer")
    digest = hashlib.sha256(
        SEED_DOMAIN + run_seed.to_bytes(8, "little") + index.to_bytes(8, "little")
    ).digest()
    return GameSeeds(
        int.from_bytes(digest[0:8], "little"), int.from_bytes(digest[8:16], "little")
    )
