"""Regression tests for what the atheris harnesses (fuzz/python) found; the inputs
themselves are in the harnesses' corpora (fuzz/python/corpus/*/finding-*)."""

from __future__ import annotations

from typing import Any

import junqi

SIGUO_DEALT: dict[str, Any] = {
    "extends": "siguo", "name": "siguo-dealt", "options": {"max_timeouts": 1},
    "deployment": {"roles": ["post", "hq"], "constraints": [], "deal": True},
}


def unknown_to_beliefs(game: junqi.Game) -> list[tuple[str, str]]:
    """(player, point) where the player's view names a kind its beliefs do not pin down."""
    out = []
    for player in game.rules.sides:
        beliefs = game.beliefs(player)
        for piece in game.view(player).pieces:
            if piece.kind is not None and beliefs.candidates(piece.point) != [piece.kind]:
                out.append((player.id, piece.point))
    return out


def test_beliefs_keep_face_up_pieces_when_another_dealt_army_is_eliminated() -> None:
    """Four players, dealt face down: when a player is out, only the face-up pieces of
    the army it commands leave the board. Every other player's beliefs used to drop
    every face-up piece not of its own army (the two-player 翻棋 shortcut "the army it
    commanded is the one not ours"), so beliefs had no candidate for pieces the views
    show face up (found by fuzz_game_calls)."""
    game = junqi.Game(SIGUO_DEALT, seed=0)
    game.resign("south")  # before any flip: no army yet, nothing leaves
    for _ in range(3):
        game.play_id(game.legal_action_ids()[0])
    flipped = [p for p in game.view("north").pieces if p.kind is not None]
    assert flipped and game.to_act == junqi.Side.EAST
    game.resign("east")  # commands the army labelled south
    assert not game.is_over
    assert unknown_to_beliefs(game) == []
    for player in game.rules.sides:
        beliefs = game.beliefs(player)
        assert beliefs.is_consistent()
        for piece in flipped:
            if piece.owner != junqi.Side.SOUTH:  # the army the east player commanded
                assert beliefs.candidates(piece.point) == [piece.kind], (player, piece)
        sampled = game.determinize(player, 1)
        assert sampled.view(player).pieces == game.view(player).pieces
