"""The API surface 翻棋 and 四国 add: flips and armies, time-outs and eliminations."""

from __future__ import annotations

import pytest

import junqi


def test_fanqi_flip_events_and_armies() -> None:
    game = junqi.Game("fanqi", seed=3)
    assert game.phase == junqi.Phase.MOVE
    assert game.view("south").army is None
    moves = game.legal_actions()
    assert len(moves) == 50 and all(m.is_flip for m in moves)
    first = moves[0]
    assert first.notation == f"flip {first.from_}" and first.to == first.from_
    assert first.id is not None
    assert game.rules.action_at(first.id) == first
    # A flip is an action but not a move of the board: the error says where to look.
    assert game.action_space == 1248 and first.id >= 1188
    with pytest.raises(junqi.OutOfRangeError, match=r"moves are 0\.\.1188.*RuleSet\.action_at"):
        game.board.move_at(first.id)
    report = game.play(first)
    flipped, *assigned = report.public
    assert flipped.type == "flipped"
    assert flipped.side == junqi.Side.SOUTH and flipped.point == first.from_
    assert flipped.owner is not None and flipped.kind is not None
    assert [e.type for e in assigned] == ["army_assigned", "army_assigned"]
    armies = {e.player: e.army for e in assigned}
    assert armies[junqi.Side.SOUTH] == flipped.owner
    assert game.view("south").army == flipped.owner
    assert game.view("north").army == armies[junqi.Side.NORTH] != flipped.owner
    # The flipped piece is public; every other piece still has no owner for both players.
    for player in ("south", "north"):
        view = game.view(player)
        up = [p for p in view.pieces if p.owner is not None]
        assert [(p.point, p.owner, p.kind) for p in up] == [(first.from_, flipped.owner, flipped.kind)]


def test_fanqi_records_keep_the_deal() -> None:
    game = junqi.Game("fanqi", seed=9)
    for _ in range(30):
        if game.is_over:
            break
        game.play_id(game.legal_action_ids()[-1])
    again = junqi.Game.from_record(game.record())
    assert again.same_state(game)
    assert '"deal"' in game.record()


def test_siguo_time_outs_and_elimination() -> None:
    game = junqi.Game("siguo", seed=5)
    for side in game.rules.sides:
        game.deploy_random(side, 1)
    assert game.rules.team_of("south") == [junqi.Side.SOUTH, junqi.Side.NORTH]
    for count in range(1, 6):
        assert game.to_act == junqi.Side.SOUTH
        report = game.time_out()
        assert report.public[0].type == "timed_out" and report.public[0].count == count
        assert game.timeouts("south") == count
        if count < 5:
            for _ in range(3):
                game.play_id(game.legal_action_ids()[0])
    assert game.eliminated == [junqi.Side.SOUTH]
    assert [e.reason for e in report.public if e.type == "eliminated"] == [junqi.EndReason.TIMEOUTS]
    view = game.view("north")
    assert all(p.owner != junqi.Side.SOUTH for p in view.pieces)
    assert game.to_act == junqi.Side.EAST


def test_sides_that_do_not_play_are_refused() -> None:
    """The same class as ``resign("east")`` (C: JUNQI_STATUS_SIDE_NOT_IN_GAME)."""
    game = junqi.Game("classic", seed=1)
    for call in (game.view, game.events, game.player_record, game.timeouts, game.obligation, game.resign):
        try:
            call("east")
        except junqi.IllegalActionError as e:
            assert str(e) == "east is not in the game"
        else:
            raise AssertionError(f"{call.__name__} accepted east")


def test_enum_members_hash_as_their_values() -> None:
    assert junqi.Side.SOUTH == 0 and hash(junqi.Side.SOUTH) == hash(0)
    table: dict[object, str] = {0: "x"}
    assert table[junqi.Side.SOUTH] == "x"
    assert {junqi.PieceKind.ENGINEER: 1}[junqi.PieceKind("工兵")] == 1


def test_mutual_elimination_is_an_end_reason() -> None:
    # One action that ends the game for both sides is a draw with its own reason.
    reason = junqi.EndReason("mutual_elimination")
    assert reason == junqi.EndReason.MUTUAL_ELIMINATION
    assert reason.id == "mutual_elimination"
