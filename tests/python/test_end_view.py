"""Game.end_view: once the game is over every piece is shown (owner and kind); before
the end it is the player's view itself."""

from __future__ import annotations

import junqi
from junqi import Side


def test_the_board_is_turned_up_at_the_end() -> None:
    game = junqi.Game("classic", seed=4)
    game.deploy_random(Side.SOUTH, 1)
    game.deploy_random(Side.NORTH, 2)
    before = game.end_view(Side.SOUTH)
    assert any(p.kind is None for p in before.pieces)
    assert [(p.point, p.kind) for p in before.pieces] == [(p.point, p.kind) for p in game.view(Side.SOUTH).pieces]
    game.resign(Side.NORTH)
    for side in (Side.SOUTH, Side.NORTH):
        end = game.end_view(side)
        assert all(p.kind is not None and p.owner is not None for p in end.pieces)
        assert len(end.pieces) == len(game.view(side).pieces)
