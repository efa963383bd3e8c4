"""atheris: records (``Game.from_record`` with JSON text or a dict, unpickling, and
player records fed back as records). A record replays or is refused with
``RecordError``; a replayed game passes every check, its record replays identically,
and its player records are refused or replay too.

    python fuzz/python/fuzz_record.py [libFuzzer options] [corpus dirs]
"""

from __future__ import annotations

import os
import pickle
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import junqi  # noqa: E402
from fuzzlib import ENGINE, as_json, attempt, decode, full_check, run  # noqa: E402


def TestOneInput(data: bytes) -> None:
    if not data:
        return
    text = decode(data[1:])
    if data[0] & 1:
        value = as_json(text)
        if not isinstance(value, dict):
            return
        game = attempt(junqi.Game.from_record, value, allow=ENGINE)
    else:
        game = attempt(junqi.Game.from_record, text)
    if game is None:
        return
    full_check(game, data[0])
    clone = pickle.loads(pickle.dumps(game))
    assert clone.same_state(game) and clone.record() == game.record()
    for player in game.rules.sides:
        other = attempt(junqi.Game.from_record, game.player_record(player))
        if other is not None:
            full_check(other)


if __name__ == "__main__":
    run(TestOneInput)
