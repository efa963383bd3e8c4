"""atheris: action ids (``Game.play_id``, ``play`` with an int, ``is_legal``,
``RuleSet.action_at``, ``Board.move_at``) with fuzzed integers, huge and negative ones
included. An id is legal and plays, or is refused (``NotationError`` /
``IllegalActionError``, ``OverflowError`` beyond 64 bits) with the game unchanged.

The first byte chooses the preset; the rest are choices of ids and time-outs.

    python fuzz/python/fuzz_action_ids.py [libFuzzer options] [corpus dirs]
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import junqi  # noqa: E402
from fuzzlib import (  # noqa: E402
    PRESETS, TYPED, Bytes, attempt, check_action_space, deploy_all, full_check,
    refused_changes_nothing, run, snapshot,
)


def TestOneInput(data: bytes) -> None:
    b = Bytes(data)
    game = junqi.Game(PRESETS[b.byte() % len(PRESETS)], seed=b.u64())
    if not deploy_all(game, b):
        return
    space = game.action_space
    for step in range(120):
        if game.is_over or b.is_empty():
            break
        c = b.byte()
        if c == 0xFF:
            game.time_out()
            continue
        legal = game.legal_action_ids()
        if c < 0x80 and legal:
            i = legal[b.below(len(legal))]
        else:
            i = b.int_any(space)
        move = attempt(game.rules.action_at, i, allow=TYPED)
        assert (move is not None) == (0 <= i < space), f"action_at({i}), space {space}"
        attempt(game.board.move_at, i, allow=TYPED)
        is_legal = attempt(game.is_legal, i, allow=TYPED)
        assert bool(is_legal) == (i in legal), f"is_legal({i}) disagrees with legal_action_ids"
        before = snapshot(game) if i not in legal else None
        play = game.play if c & 1 else game.play_id
        report = attempt(play, i, allow=TYPED)
        if before is not None:
            assert report is None, f"illegal id {i} was played"
            refused_changes_nothing(game, before, f"play_id({i})")
        else:
            assert report is not None
        if step % 16 == 0:
            check_action_space(game)
    full_check(game)


if __name__ == "__main__":
    run(TestOneInput)
