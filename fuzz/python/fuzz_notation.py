"""atheris: notation (``Game.play(text)``, ``parse_action``, ``is_legal``, ``play_as``,
and the enum constructors that parse names). Text is an action of the game or refused
(``NotationError`` / ``IllegalActionError``) with the game unchanged; a parsed move prints
back to itself.

The first byte chooses the preset, the second how many random plies come first; the
rest is the text.

    python fuzz/python/fuzz_notation.py [libFuzzer options] [corpus dirs]
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import junqi  # noqa: E402
from fuzzlib import (  # noqa: E402
    PRESETS, Bytes, attempt, check_record, check_views, decode, deploy_all, play_random,
    refused_changes_nothing, run, snapshot,
)

ENUMS = (junqi.Side, junqi.PieceKind, junqi.Attack, junqi.Phase, junqi.Role, junqi.Ability, junqi.CombatOutcome)


def TestOneInput(data: bytes) -> None:
    if len(data) < 2:
        return
    choice, plies, text = data[0], data[1], decode(data[2:])
    game = junqi.Game(PRESETS[choice % len(PRESETS)], seed=choice)
    b = Bytes(bytes([plies, choice]) * 8)
    deploy_all(game, b)
    play_random(game, b, plies % 24)
    for enum in ENUMS:
        attempt(enum, text)
    attempt(game.board.index, text)
    move = attempt(game.parse_action, text)
    if move is not None:
        again = game.parse_action(move.notation)
        assert again == move, f"{text!r} parsed as {move.notation!r} which parses as {again.notation!r}"
    legal = attempt(game.is_legal, text)
    before = snapshot(game)
    if choice & 0x80 and game.to_act is not None:
        report = attempt(game.play_as, game.rules.sides[plies % len(game.rules.sides)], text)
    else:
        report = attempt(game.play, text)
    if report is None:
        assert not legal or choice & 0x80, f"{text!r} is legal but was refused"
        refused_changes_nothing(game, before, f"play({text!r})")
        return
    assert move is not None and legal, f"{text!r} played but is not a legal move"
    check_views(game)
    check_record(game)


if __name__ == "__main__":
    run(TestOneInput)
