"""atheris: setups (``Game.deploy(side, text_or_dict)``). Any JSON text or dict deploys
or is refused (``SetupError``, or ``TypeError`` for a dict of non-strings) with the game
unchanged; a game whose every side deployed plays a short checked game.

The first byte chooses the preset, the side and the form (JSON text or dict); the rest
is the setup.

    python fuzz/python/fuzz_setup.py [libFuzzer options] [corpus dirs]
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import junqi  # noqa: E402
from fuzzlib import (  # noqa: E402
    TYPED, Bytes, as_json, attempt, check_record, decode, full_check, play_random,
    refused_changes_nothing, run, snapshot,
)

SETUP_PRESETS = ("classic", "siguo", "siguo-2p", "sanjun-modern", "sanjun-book", "fanqi")


def TestOneInput(data: bytes) -> None:
    if not data:
        return
    choice, text = data[0], decode(data[1:])
    game = junqi.Game(SETUP_PRESETS[choice % len(SETUP_PRESETS)], seed=choice)
    side = junqi.Side.members()[(choice >> 3) % 4]
    setup: object = text
    if choice & 0x20:
        setup = as_json(text)
        if not isinstance(setup, dict):
            return
    before = snapshot(game)
    report = attempt(game.deploy, side, setup, allow=TYPED)
    if report is None:
        refused_changes_nothing(game, before, "deploy")
        return
    assert side in game.deployed
    check_record(game)
    # The rest of the sides at random, then a few plies with every check.
    b = Bytes(data[-16:])
    for other in game.rules.sides:
        if other not in game.deployed:
            game.deploy_random(other, b.u64())
    play_random(game, b, 8)
    full_check(game)


if __name__ == "__main__":
    run(TestOneInput)
