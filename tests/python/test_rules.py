"""The rules at the API level: combat, movement, railway runs, game end."""

from __future__ import annotations

import pytest

import junqi
from junqi import CombatOutcome, PieceKind, RevealCause, Side


@pytest.mark.parametrize(
    "attacker, defender, outcome",
    [
        ("commander", "army_commander", CombatOutcome.WIN),
        ("division_commander", "commander", CombatOutcome.LOSE),
        ("division_commander", "division_commander", CombatOutcome.BOTH),
        ("engineer", "platoon_leader", CombatOutcome.LOSE),
        ("engineer", "mine", CombatOutcome.WIN),
        ("commander", "mine", CombatOutcome.LOSE),
        ("bomb", "mine", CombatOutcome.BOTH),
        ("bomb", "commander", CombatOutcome.BOTH),
        ("engineer", "bomb", CombatOutcome.BOTH),
        ("platoon_leader", "flag", CombatOutcome.WIN),
        ("bomb", "flag", CombatOutcome.BOTH),  # the bomb goes too, the flag is taken
        ("mine", "engineer", CombatOutcome.ILLEGAL),  # mines never attack
        ("tank", "engineer", CombatOutcome.ILLEGAL),  # not in the classic army
    ],
)
def test_combat_table(attacker: str, defender: str, outcome: CombatOutcome) -> None:
    assert junqi.resolve("classic", attacker, defender) == outcome
    rules = junqi.RuleSet("classic")
    assert rules.resolve(PieceKind(attacker), PieceKind(defender)) == outcome


def test_combat_options_change_the_table() -> None:
    variant = '{"extends": "classic", "name": "variant", "options": {"mine_survives": false, "bomb_may_hit_flag": false}}'
    assert junqi.resolve(variant, "commander", "mine") == CombatOutcome.BOTH
    assert junqi.resolve(variant, "bomb", "flag") == CombatOutcome.REPEL
    as_dict = {"extends": "classic", "name": "variant", "options": {"mine_survives": False}}
    assert junqi.resolve(as_dict, "commander", "mine") == CombatOutcome.BOTH
    assert junqi.resolve(junqi.RuleSet(as_dict), "engineer", "mine") == CombatOutcome.WIN


def test_chinese_names_and_enum_conversions() -> None:
    assert junqi.resolve("classic", "工兵", "地雷") == CombatOutcome.WIN
    assert PieceKind("司令") == PieceKind.COMMANDER
    assert PieceKind("師長") == PieceKind.DIVISION_COMMANDER
    assert Side("n") == Side.NORTH and Side("North") == Side.NORTH and Side(2) == Side.NORTH
    assert str(Side.SOUTH) == "south" and repr(Side.SOUTH) == "Side.SOUTH"
    assert repr(PieceKind.ENGINEER) == "PieceKind.ENGINEER"
    assert PieceKind.ENGINEER.id == "engineer" and PieceKind.ENGINEER.name == "ENGINEER"
    assert PieceKind.ENGINEER.chinese_names[0] == "工兵"
    assert PieceKind.FLAG.piece_class == "flag"
    assert CombatOutcome.BOTH.attacker_leaves and CombatOutcome.BOTH.defender_leaves
    assert len(PieceKind.members()) == 32
    assert {Side.SOUTH: 1}[Side.SOUTH] == 1


def test_rule_sets_and_rules_object() -> None:
    assert "classic" in junqi.rule_sets()
    rules = junqi.RuleSet("classic")
    assert rules.name == "classic"
    assert rules.sides == [Side.SOUTH, Side.NORTH]
    assert rules.army_size == 25 and sum(rules.army.values()) == 25
    assert rules.army[PieceKind.ENGINEER] == 3
    assert rules.options["no_capture_draw_plies"] == 70
    assert rules.mobility("engineer") == "rail_turn"
    assert rules.mobility("flag") == "immobile"
    assert rules.has_kind("bomb") and not rules.has_kind("tank")
    assert len(rules.deploy_points("south")) == 25
    assert junqi.RuleSet(rules.to_json()) == rules
    assert rules.action_space == rules.board.action_space


def test_board_geometry() -> None:
    board = junqi.Board("classic")
    assert len(board) == 60 and "c6" in board and "z1" not in board
    assert board.role("b1") == junqi.Role.HQ
    assert board.role("c4") == junqi.Role.CAMP
    assert board.edge("c6", "c7") == junqi.EdgeKind.RAILWAY
    assert board.edge("b6", "b7") is None  # mountains: no edge at all
    assert board.edge("c4", "b3") == junqi.EdgeKind.ROAD  # camp diagonal
    assert board.is_railway("a5") and not board.is_railway("c8")
    assert board.side_of("a1") == Side.SOUTH and board.side_of("a12") == Side.NORTH
    assert board.depth("a12") == 1
    i = board.move_index("a2", "a6")
    assert i is not None and board.move_at(i) == ("a2", "a6")
    assert board.move_index("a1", "e12") is None
    assert ("a2", junqi.EdgeKind.ROAD) in board.neighbours("a1")
    with pytest.raises(junqi.UnknownNameError, match="unknown point"):
        board.role("z9")
    with pytest.raises(junqi.OutOfRangeError, match=r"not a move index of this board \(moves are 0\.\.1188\)"):
        board.move_at(-1)
    with pytest.raises(junqi.UnknownNameError, match="unknown board"):
        junqi.Board("hexagonal")


def test_deployment_and_turns(game: junqi.Game) -> None:
    assert game.phase == junqi.Phase.MOVE
    assert game.to_act == Side.SOUTH
    assert game.deployed == [Side.SOUTH, Side.NORTH]
    game.play("a6-a7")  # division attacks North's engineer on the crossing railway
    assert game.to_act == Side.NORTH and game.ply == 1


def test_combat_in_a_game_reveals_flags(game: junqi.Game) -> None:
    report = game.play("c6-c7")  # commander x commander: both leave the board
    public = report.public
    assert [e.type for e in public] == ["attacked", "revealed", "revealed"]
    attack = public[0]
    assert attack.outcome == CombatOutcome.BOTH and attack.side == Side.SOUTH
    assert (attack.from_, attack.to) == ("c6", "c7")
    revealed = {(e.owner, e.point, e.kind, e.cause) for e in public[1:]}
    assert revealed == {
        (Side.NORTH, "d12", PieceKind.FLAG, RevealCause.COMMANDER_LOST),
        (Side.SOUTH, "b1", PieceKind.FLAG, RevealCause.COMMANDER_LOST),
    }
    assert report.private == {}
    view = game.view("south")
    assert view.piece_at("c6") is None and view.piece_at("c7") is None
    flag = view.piece_at("d12")
    assert flag is not None and flag.kind == PieceKind.FLAG and flag.owner == Side.NORTH


def test_railway_runs(game: junqi.Game) -> None:
    game.play("c6-c7")  # clears c6 and c7
    game.play("a8-b8")  # North steps into a camp
    ids = set(game.legal_action_ids())
    notations = {m.notation for m in game.legal_actions()}
    # The engineer turns on the railway: d6 -> c6 -> c7 -> b7 (an attack).
    assert {"d6-c6", "d6-c7", "d6-b7"} <= notations
    # The army commander runs straight along row 6 only: it may not turn onto c7.
    assert "b6-c6" in notations and "b6-c7" not in notations
    with pytest.raises(junqi.IllegalActionError, match="cannot reach c7"):
        game.play("b6-c7")
    for m in game.legal_actions():
        assert m.id in ids
    report = game.play("d6-b7")  # engineer x engineer
    assert report.public[0].outcome == CombatOutcome.BOTH


def test_game_over_and_result() -> None:
    game = junqi.Game(seed=3)
    game.deploy_random("south")
    game.deploy_random("north")
    ids = game.legal_action_ids()
    plies = 0
    while not game.is_over:
        ids = game.legal_action_ids()
        game.play_id(ids[(plies * 7919) % len(ids)])
        plies += 1
    result = game.result
    assert result is not None and game.phase == junqi.Phase.OVER and game.to_act is None
    assert result.reason in {
        junqi.EndReason.FLAG_CAPTURED,
        junqi.EndReason.NO_LEGAL_MOVE,
        junqi.EndReason.NO_CAPTURE_LIMIT,
    }
    assert game.legal_action_ids() == [] and game.legal_actions() == []
    last = game.events("south")[-1]
    assert last.type == "game_over" and last.result == result
    with pytest.raises(junqi.IllegalActionError, match="the game is over"):
        game.play_id(ids[0])


def test_resign_and_draw() -> None:
    game = junqi.Game(seed=1)
    game.deploy_random("south")
    game.deploy_random("north")
    report = game.resign("north")
    assert report.result is not None and report.result.winner == Side.SOUTH
    assert report.result.reason == junqi.EndReason.RESIGNATION
    assert str(report.result) == "south wins: resignation (resignation)"
    game2 = junqi.Game(seed=1)
    game2.deploy_random("south")
    game2.deploy_random("north")
    r = game2.agree_draw().result
    assert r is not None and r.is_draw and r.winners == [] and r.winner is None


def test_random_setup_is_legal_and_editable() -> None:
    rules = junqi.RuleSet()
    setup = rules.random_setup("north", 42)
    assert setup == rules.random_setup(Side.NORTH, 42)
    assert len(setup) == 25 and set(setup) == set(rules.deploy_points("north"))
    assert sorted(setup.values(), key=lambda k: k.value).count(PieceKind.FLAG) == 1
    game = junqi.Game(rules)
    game.deploy("north", setup)
    flag_point = next(p for p, k in setup.items() if k == PieceKind.FLAG)
    assert rules.board.role(flag_point) == junqi.Role.HQ
    with pytest.raises(junqi.SideNotInGameError, match="east is not in the game"):
        rules.random_setup("east", 1)
