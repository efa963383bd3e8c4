"""atheris: rule-set JSON (``RuleSet(text)``, ``RuleSet.from_json``, ``RuleSet(dict)``,
``Game(rules)``). A rule set loads or is refused with ``RulesError``; one that loads
round-trips through ``to_json``, answers its accessors, and plays a short checked game.

    python fuzz/python/fuzz_rules_json.py [libFuzzer options] [corpus dirs]
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import junqi  # noqa: E402
from fuzzlib import ENGINE, TYPED, Bytes, as_json, attempt, decode, deploy_all, full_check, play_random, run  # noqa: E402


def TestOneInput(data: bytes) -> None:
    if not data:
        return
    mode, text = data[0], decode(data[1:])
    if mode & 1:
        value = as_json(text)
        if not isinstance(value, dict):
            return
        rules = attempt(junqi.RuleSet, value, allow=ENGINE)
    elif mode & 2:
        rules = attempt(junqi.RuleSet.from_json, text)
    else:
        rules = attempt(junqi.RuleSet, text)
    if rules is None:
        return
    again = junqi.RuleSet.from_json(rules.to_json())
    assert again == rules and again.to_json() == rules.to_json(), "to_json does not round-trip"
    b = Bytes(bytes([mode]) + data[-64:])
    _ = (rules.name, rules.sides, rules.teams, rules.army, rules.options, rules.observation_spec())
    board = rules.board
    for side in junqi.Side.members():
        attempt(rules.deploy_points, side)
        attempt(rules.team_of, side)
    for kind in list(rules.army)[:6]:
        rules.mobility(kind)
        rules.abilities(kind)
        for other in list(rules.army)[:6]:
            rules.resolve(kind, other)
    space = rules.action_space
    for _ in range(4):
        i = b.int_any(space)
        m = attempt(rules.action_at, i, allow=TYPED)
        assert (m is not None) == (0 <= i < space), f"action_at({i}) with a space of {space}"
    assert len(board.points) == len(board)
    game = junqi.Game(rules, seed=b.u64())
    if not deploy_all(game, b):
        return
    play_random(game, b, 40 + (mode >> 2))
    full_check(game, b.u64())


if __name__ == "__main__":
    run(TestOneInput)
