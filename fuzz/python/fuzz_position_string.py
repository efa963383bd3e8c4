"""atheris: position strings and view strings through the Python API
(``Game.from_position_string``, ``Game.position_string``, ``Game.view_string``).

Any text either reads or is refused with a ``JunqiError`` that says why (a
``PositionStringError``, or a ``RulesError`` for an unknown rule set); a string that
reads prints back to a string that reads to the same string and the same legal actions;
every player's view string of it reads back to a game that shows that player the same
view string; the game plays (a legal action, time-outs) and its record, which starts
from the string, replays to the same state.

The first byte chooses the form: even, the rest is the text; odd, a real string (the
position or a player's view of a preset after some random plies, chosen by the next
bytes) edited by the rest (characters replaced, deleted, inserted; fields and piece
entries added, dropped or swapped) — so that most inputs get past the first field.
Wrong argument types (bytes, None, huge or negative seeds) must raise ``TypeError`` or
``OverflowError``.

    python fuzz/python/fuzz_position_string.py [libFuzzer options] [corpus dirs]
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import junqi  # noqa: E402
from fuzzlib import (  # noqa: E402
    EDGE_INTS, PRESETS, TYPED, Bytes, attempt, check_action_space, check_record, deploy_all, play_random, run,
)

# Pieces of the grammar an edit may insert.
TOKENS = (
    " ", ",", "=", "?", "!", "+", "-", ":", "%", "%41", "%2", "??", "?N", "?A", "S", "E", "N", "W", "SFL", "NBO",
    "a1=SFL", "a1", "k17", "move", "deploy", "reaction", "over", "0", "999999999", "4294967296",
    " deployed=S", " deployed=-", " out=E", " timeouts=S1", " timeouts=S0", " armies=SN,NS", " armies=-",
    " obliged=a7", " react=a1+", " result=S:flag_captured", " result=-:agreed", " view=S", " view=N",
    " view=W", "\u5de5\u5175", "\x00", "\t", "\n",
)


def real(b: Bytes) -> str:
    """The position string, or a player's view string, of a preset after some plies."""
    rules = b.pick(PRESETS)
    game = junqi.Game(rules, seed=b.byte())
    c = b.byte()
    if c & 1:
        deploy_all(game, b)
        play_random(game, Bytes(bytes([b.byte(), c]) * 6), b.byte() % 40)
    if c & 2:
        return game.view_string(game.rules.sides[b.below(len(game.rules.sides))])
    return game.position_string()


def edit(text: str, b: Bytes) -> str:
    for _ in range(1 + b.below(4)):
        if b.is_empty():
            break
        i = b.below(len(text) + 1)
        op = b.byte() % 7
        if op == 0:
            text = text[:i] + b.pick(TOKENS) + text[i:]
        elif op == 1:
            text = text[:i] + text[i + 1 + b.below(6):]
        elif op == 2:
            text = text[:i] + chr(b.byte()) + text[i + 1:]
        elif op == 3:
            # Drop, repeat or swap piece entries.
            fields = text.split(" ")
            if len(fields) > 1:
                pieces = fields[1].split(",")
                j, k = b.below(len(pieces)), b.below(len(pieces))
                how = b.byte() % 3
                if how == 0:
                    del pieces[j]
                elif how == 1:
                    pieces.insert(k, pieces[j])
                else:
                    pieces[j], pieces[k] = pieces[k], pieces[j]
                fields[1] = ",".join(pieces) or "-"
                text = " ".join(fields)
        elif op == 4:
            # Drop or swap whole fields.
            fields = text.split(" ")
            j, k = b.below(len(fields)), b.below(len(fields))
            if b.byte() & 1:
                del fields[j]
            else:
                fields[j], fields[k] = fields[k], fields[j]
            text = " ".join(fields)
        elif op == 5:
            text = text + b.pick(TOKENS)
        else:
            text = text[:i] + b.text(8) + text[i:]
    return text


def check(text: str, seed: int) -> None:
    game = attempt(junqi.Game.from_position_string, text, seed)
    if game is None:
        return
    printed = game.position_string()
    assert "\n" not in printed
    again = junqi.Game.from_position_string(printed, seed)
    assert again.position_string() == printed, f"{text!r} prints as {printed!r}, which prints differently"
    assert again.legal_action_ids() == game.legal_action_ids(), f"{printed!r} reads back with other actions"
    for side in game.rules.sides:
        view = game.view_string(side)
        seen = junqi.Game.from_position_string(view, seed)
        assert seen.view_string(side) == view, f"{side}'s view {view!r} reads back differently"
    check_action_space(game)
    if game.to_act is not None and not game.is_over:
        ids = game.legal_action_ids()
        if ids:
            game.play_id(ids[seed % len(ids)])
        elif game.phase == junqi.Phase.DEPLOY:
            game.deploy_random(game.to_act, seed)
        elif seed & 1:
            game.time_out()
    check_record(game)


def TestOneInput(data: bytes) -> None:
    if not data:
        return
    b = Bytes(data)
    form = b.byte()
    seed = b.byte()
    if form & 1:
        text = edit(real(b), b)
    else:
        text = b.rest().decode("utf-8", "replace")
    check(text, seed)
    if form & 6 == 6:
        # Wrongly typed arguments.
        attempt(junqi.Game.from_position_string, text.encode(), allow=TYPED)
        attempt(junqi.Game.from_position_string, None, allow=TYPED)
        attempt(junqi.Game.from_position_string, text, EDGE_INTS[seed % len(EDGE_INTS)], allow=TYPED)


if __name__ == "__main__":
    run(TestOneInput)
