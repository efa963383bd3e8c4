"""Game.narrate: a seat's log in words from its side (the core's narrator), in English
and Chinese, naming only the pieces the seat knows."""

from __future__ import annotations

import json

import pytest

import junqi
from junqi import PieceKind, Side


def played(seed: int, plies: int) -> junqi.Game:
    game = junqi.Game("classic", seed=seed)
    game.deploy_random(Side.SOUTH, 1)
    game.deploy_random(Side.NORTH, 2)
    for i in range(plies):
        if game.is_over:
            break
        legal = game.legal_actions()
        game.play(legal[(i * 7919) % len(legal)])
    return game


def test_the_log_in_words_from_each_side() -> None:
    game = played(3, 40)
    south = game.narrate(Side.SOUTH)
    north = game.narrate("north", language="en-GB")
    assert len(south) == len(game.events(Side.SOUTH)) and len(north) == len(game.events(Side.NORTH))
    assert south[:2] == ["you deployed", "north deployed"]
    assert north[:2] == ["south deployed", "you deployed"]
    assert any(line.startswith("you moved your ") for line in south)
    assert any(line.startswith("south moved ") for line in north)
    assert game.narrate(Side.NORTH, "zh-CN")[:2] == ["南方布好了阵", "你布好了阵"]
    game.resign(Side.NORTH)
    assert game.narrate(Side.NORTH)[-1] == "you lose: you resigned"
    assert game.narrate(Side.SOUTH)[-1] == "you win: the other side resigned"
    assert game.narrate(Side.SOUTH, "zh")[-1] == "你赢了：对方认输"


OFFICERS = {"platoon_commander", "company_commander", "battalion_commander", "regiment_commander",
            "brigade_commander", "division_commander"}


def test_only_what_the_side_knows() -> None:
    # Two games that differ only in two South officers that never moved nor fought
    # (so North cannot tell them apart): North's words are the same in both, South's
    # own words name its pieces as they are.
    game = played(5, 60)
    setup = json.loads(game.player_record(Side.SOUTH))["setup"]
    touched: set[str] = set()
    for e in game.events(Side.NORTH):
        d = e.to_dict()
        touched.update(str(v) for k, v in d.items() if k in ("from", "to", "at", "point"))
    quiet = [p for p, k in setup.items() if k in OFFICERS and p not in touched]
    a, b = next((x, y) for x in quiet for y in quiet if setup[x] != setup[y])
    swapped = dict(setup)
    swapped[a], swapped[b] = setup[b], setup[a]
    other = junqi.Game("classic", seed=5)
    other.deploy(Side.SOUTH, swapped)
    other.deploy(Side.NORTH, json.loads(game.player_record(Side.NORTH))["setup"])
    for entry in json.loads(game.record())["actions"][2:]:
        other.play(other.parse_action(entry["action"] if isinstance(entry, dict) else entry))
    assert other.ply == game.ply
    assert other.narrate(Side.NORTH) == game.narrate(Side.NORTH)
    assert other.narrate(Side.NORTH, "zh-CN") == game.narrate(Side.NORTH, "zh-CN")


def test_refused() -> None:
    game = junqi.Game("classic", seed=1)
    with pytest.raises(ValueError):
        game.narrate("east")
    with pytest.raises(TypeError):
        game.narrate(Side.SOUTH, language=3)  # type: ignore[arg-type]
