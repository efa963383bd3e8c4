"""海陆空三军棋 through the Python API: the four presets, the reaction phase, the new
events (struck, shot_down, reaction_due), reveal causes, arms, abilities and air
positions."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any, Mapping

import pytest

import junqi
from junqi import Ability, Arm, EndReason, Event, CombatOutcome, Phase, PieceKind, RevealCause, Side

SANJUN = ["sanjun-modern", "sanjun-hk", "sanjun-book", "sanjun-forum"]


def test_presets_and_new_names() -> None:
    assert set(SANJUN) <= set(junqi.rule_sets())
    assert Phase.REACTION.id == "reaction" and str(Phase.REACTION) == "reaction"
    assert Phase("reaction") == Phase.REACTION and repr(Phase.REACTION) == "Phase.REACTION"
    assert [p.id for p in Phase.members()] == ["deploy", "move", "reaction", "over"]
    assert EndReason.COMMANDER_CAPTURED.id == "commander_captured"
    assert EndReason("commander_captured") == EndReason.COMMANDER_CAPTURED
    assert len(EndReason.members()) == 10
    assert [c.id for c in RevealCause.members()] == [
        "commander_lost", "engineer_scout", "scouted", "anti_air", "open_play",
    ]
    assert RevealCause.SCOUTED.name == "SCOUTED" and RevealCause("anti_air") == RevealCause.ANTI_AIR
    assert repr(RevealCause.OPEN_PLAY) == "RevealCause.OPEN_PLAY"
    assert [a.id for a in Arm.members()] == ["army", "navy", "air"]
    assert [a.id for a in Ability.members()] == ["strike", "bombard", "anti_air", "flight", "scout"]
    assert junqi.STRIKE_RANGE == 2


def test_arms_abilities_and_mobility() -> None:
    assert PieceKind.SUBMARINE.arm == Arm.NAVY
    assert PieceKind.FIGHTER.arm == Arm.AIR
    assert PieceKind.ENGINEER.arm == Arm.ARMY and PieceKind.FLAG.arm == Arm.ARMY
    rules = junqi.RuleSet("sanjun-modern")
    assert rules.abilities("gunboat") == [Ability.BOMBARD, Ability.ANTI_AIR]
    assert rules.abilities(PieceKind.RECON) == [Ability.SCOUT]
    assert rules.abilities("engineer") == []
    assert rules.has_ability("fort", "strike") and not rules.has_ability("fort", Ability.FLIGHT)
    assert rules.mobility("submarine") == "sail"
    assert rules.mobility("battleship") == "sail_and_land"
    assert rules.mobility("fighter") == "fly"
    assert junqi.RuleSet("classic").abilities("engineer") == []


def test_air_positions_on_the_board() -> None:
    board = junqi.RuleSet("sanjun-modern").board
    assert "c7^" in board and board.is_air("c7^") and not board.is_air("c7")
    assert board.is_sea("c7") and not board.is_land("c7")
    assert board.is_land("c3") and not board.is_sea("c3")
    assert board.above("c7") == "c7^" and board.below("c7^") == "c7"
    assert board.above("b9") is None
    assert board.distance("c3", "c5") == 2
    assert board.role("a1^") == junqi.Role.AIRPORT


def deployed(rules: str | Mapping[str, Any], seed: int) -> junqi.Game:
    game = junqi.Game(rules, seed)
    for side in game.rules.sides:
        game.deploy_random(side)
    return game


def check_event(e: Event, board: junqi.Board) -> None:
    """The attributes of the new event types are filled in, and only those."""
    assert e.to_dict()["type"] == e.type
    assert repr(e).startswith(f"<Event {e.type}: ")
    if e.type == "struck":
        assert e.side is not None and e.from_ is not None and e.to is not None
        assert e.outcome is not None and e.point is None and e.at is None
        assert e.to_dict() == {
            "type": "struck", "side": e.side.id, "from": e.from_, "to": e.to, "outcome": e.outcome.id,
        }
        assert "struck" in e.describe()
    elif e.type == "shot_down":
        assert e.side is not None and e.from_ is not None and e.at is not None
        # Over a gun under an air position the plane falls at that air position; over a gun
        # between the air rows (no air position above it) it falls over the gun's own point.
        assert e.to is None and e.outcome is None
        assert e.at.endswith("^") or board.above(e.at) is None
        assert e.to_dict() == {"type": "shot_down", "side": e.side.id, "from": e.from_, "at": e.at}
    elif e.type == "reaction_due":
        assert e.player is not None and e.point is not None and e.side is None
        assert e.to_dict() == {"type": "reaction_due", "player": e.player.id, "point": e.point}
    elif e.type == "revealed":
        assert isinstance(e.cause, RevealCause)
        assert e.to_dict()["cause"] == e.cause.id
    else:
        assert e.at is None


@pytest.mark.parametrize("name", SANJUN)
def test_random_games_to_the_end(name: str) -> None:
    rng = random.Random(name)
    types: Counter[str] = Counter()
    reactions = 0
    for seed in range(12):
        game = deployed(name, seed)
        mover: Side | None = None
        while not game.is_over:
            assert game.ply < 5000
            player = game.to_act
            assert player is not None
            if game.phase == Phase.REACTION:
                reactions += 1
                # The owner of the submarine reacts: not the side that just attacked.
                assert player != mover
                moves = game.legal_actions()
                assert moves and len({m.from_ for m in moves}) == 1
            else:
                assert game.phase == Phase.MOVE
            mover = player
            report = game.play_id(rng.choice(game.legal_action_ids()))
            for e in report.public + [e for es in report.private.values() for e in es]:
                types[e.type] += 1
                check_event(e, game.board)
            if game.ply % 100 == 0:
                for side in game.rules.sides:
                    assert str(game.view(side))
        assert game.result is not None and game.phase == Phase.OVER and game.to_act is None
        for side in game.rules.sides:
            view = game.view(side)
            assert view.phase == Phase.OVER and str(view)
            for e in view.events:
                check_event(e, game.board)
        again = junqi.Game.from_record(game.record())
        assert again.same_state(game)
    assert types["moved"] > 0 and types["game_over"] == 12
    assert types["struck"] > 0 and types["shot_down"] > 0  # forts, gunboats, aa guns
    assert types["reaction_due"] == reactions
    if not junqi.RuleSet(name).options["evade_step"]:
        assert reactions == 0


def test_sanjun_modern_plays_to_the_end_printing_views(capsys: pytest.CaptureFixture[str]) -> None:
    game = junqi.Game("sanjun-modern", 1)
    assert game.phase == Phase.DEPLOY
    for side in game.rules.sides:
        game.deploy_random(side)
    assert game.phase == Phase.MOVE
    while not game.is_over:
        player = game.to_act
        assert player is not None
        print(game.view(player))
        game.play(game.legal_actions()[0])
    print(game.result)
    for side in game.rules.sides:
        print(game.view(side))
    out = capsys.readouterr().out
    assert str(game.result) in out


def reaction_game() -> junqi.Game:
    """A sanjun-book game (evade_step) in the reaction phase: South's fighter attacked
    North's submarine at a8 from the air, the submarine evaded, and North must now step
    it away."""
    rules = junqi.RuleSet("sanjun-book")
    assert rules.options["evade_step"] is True
    south = {p: k.id for p, k in rules.random_setup("south", 1).items()}
    north = {p: k.id for p, k in rules.random_setup("north", 2).items()}

    def put(setup: dict[str, str], point: str, kind: str) -> None:
        (other,) = [p for p, k in setup.items() if k == kind]
        setup[other], setup[point] = setup[point], setup[other]

    put(south, "a1^", "fighter")
    put(north, "b9", "submarine")
    game = junqi.Game(rules, 1)
    game.deploy("south", south)
    game.deploy("north", north)

    def quiet_south_move() -> junqi.Action:
        view = game.view("south")
        return next(
            m for m in game.legal_actions()
            if not game.board.is_air(m.from_) and view.piece_at(m.to) is None
        )

    game.play(quiet_south_move())
    game.play("b9-a9")
    game.play(quiet_south_move())
    game.play("a9-a8")
    return game


def test_a_reaction() -> None:
    game = reaction_game()
    assert game.phase == Phase.MOVE and game.to_act == Side.SOUTH
    report = game.play("a1^-a8^")  # the fighter attacks the submarine below a8^
    attacked, due = report.public
    assert attacked.type == "attacked" and attacked.outcome == CombatOutcome.EVADE
    assert (attacked.from_, attacked.to) == ("a1^", "a8^")
    assert due.type == "reaction_due" and due.player == Side.NORTH and due.point == "a8"
    assert repr(due) == "<Event reaction_due: north must step the submarine on a8 away>"
    assert game.phase == Phase.REACTION and game.to_act == Side.NORTH
    assert game.view("south").phase == Phase.REACTION
    assert game.view("north").to_act == Side.NORTH
    steps = game.legal_actions()
    assert {m.from_ for m in steps} == {"a8"} and {m.to for m in steps} == {"a7", "b8", "a9"}
    assert [i for i, ok in enumerate(game.action_mask()) if ok] == game.legal_action_ids()

    # Only the step is allowed, and only for North; a refusal leaves the game unchanged.
    with pytest.raises(junqi.IllegalActionError, match="must first step away"):
        game.play("b12-b11")
    with pytest.raises(junqi.IllegalActionError):
        game.play_as("south", "c1-b1")
    with pytest.raises(junqi.IllegalActionError):
        game.play_as("south", "a8-a7")
    assert game.is_legal("a8-b8") and not game.is_legal("b12-b11")
    assert game.phase == Phase.REACTION and game.to_act == Side.NORTH

    # A time-out lets the step lapse: the submarine stays.
    lapsed = game.copy()
    lapsed.time_out()
    assert lapsed.phase == Phase.MOVE
    piece = lapsed.view("north").piece_at("a8")
    assert piece is not None and piece.kind == PieceKind.SUBMARINE

    step = game.play_as("north", "a8-b8")
    assert [(e.type, e.side, e.from_, e.to) for e in step.public] == [("moved", Side.NORTH, "a8", "b8")]
    assert game.phase == Phase.MOVE and game.to_act == Side.NORTH  # then North's own turn
    assert game.view("north").piece_at("a8") is None
    again = junqi.Game.from_record(game.record())
    assert again.same_state(game)


def test_commander_capture_ends_a_game() -> None:
    rules = {"extends": "sanjun-book", "name": "book-capture", "options": {"commander_capture": True}}
    reasons: set[EndReason] = set()
    for seed in range(40):
        game = deployed(rules, seed)
        rng = random.Random(seed)
        while not game.is_over:
            game.play_id(rng.choice(game.legal_action_ids()))
        assert game.result is not None
        reasons.add(game.result.reason)
        if game.result.reason == EndReason.COMMANDER_CAPTURED:
            assert str(game.result).endswith("(commander_captured)")
            assert game.result.winner is not None
            break
    assert EndReason.COMMANDER_CAPTURED in reasons, reasons


def test_open_play_reveals_both_pieces_of_a_combat() -> None:
    rules = {"extends": "sanjun-modern", "name": "open", "options": {"open_play": True}}
    game = deployed(rules, 3)
    rng = random.Random(3)
    while not game.is_over:
        report = game.play_id(rng.choice(game.legal_action_ids()))
        if any(e.type in ("attacked", "struck") for e in report.public):
            causes = [e.cause for e in report.public if e.type == "revealed"]
            assert causes.count(RevealCause.OPEN_PLAY) == 2
            return
    raise AssertionError("no combat in the whole game")


def test_attack_enum() -> None:
    assert [a.id for a in junqi.Attack.members()] == ["move", "flight", "strike", "bombardment"]
    assert [a.value for a in junqi.Attack.members()] == [0, 1, 2, 3]
    assert junqi.Attack("bombardment") == junqi.Attack.BOMBARDMENT == junqi.Attack("BOMBARDMENT")
    assert junqi.Attack(2) == junqi.Attack.STRIKE
    assert repr(junqi.Attack.FLIGHT) == "Attack.FLIGHT" and str(junqi.Attack.FLIGHT) == "flight"
    with pytest.raises(junqi.UnknownNameError, match="unknown attack"):
        junqi.Attack("bombard")


def test_resolve_attack() -> None:
    rules = junqi.RuleSet("sanjun-modern")
    # A gunboat's bombardment of a commander: the gunboat loses, and nothing happens.
    r = junqi.resolve_attack("sanjun-modern", "gunboat", "commander", junqi.Attack.BOMBARDMENT)
    assert isinstance(r, junqi.Resolution)
    assert r.outcome == CombatOutcome.LOSE
    assert not r.attacker_leaves and not r.defender_leaves and not r.attacker_moves
    assert repr(r) == (
        "Resolution(outcome=CombatOutcome.LOSE, attacker_leaves=False, defender_leaves=False,"
        " attacker_moves=False)"
    )
    # The same attack made by moving would cost the attacker.
    moved = junqi.resolve_attack(rules, PieceKind.GUNBOAT, PieceKind.COMMANDER, "move")
    assert moved.outcome == CombatOutcome.LOSE and moved.attacker_leaves
    # A fort's strike on a cruiser: the cruiser leaves, the fort stays put.
    r = junqi.resolve_attack(rules, PieceKind.FORT, "cruiser", "strike")
    assert r.defender_leaves and not r.attacker_moves and not r.attacker_leaves
    # A battleship landing onto an infantry wins and moves in.
    r = junqi.resolve_attack(rules, "battleship", "infantry", junqi.Attack.MOVE)
    assert r.outcome == CombatOutcome.WIN and r.defender_leaves and r.attacker_moves
    assert not r.attacker_leaves
    # Equal resolutions compare and hash equal; the method agrees with the function.
    same = rules.resolve_attack("battleship", "infantry", "MOVE")
    assert same == r and hash(same) == hash(r) and len({same, r}) == 1
    # Whatever the manner, the outcome is the combat table's.
    for attack in junqi.Attack.members():
        for a in rules.army:
            for d in rules.army:
                assert junqi.resolve_attack(rules, a, d, attack).outcome == junqi.resolve(rules, a, d)
    # Resolutions are frozen.
    with pytest.raises(AttributeError):
        r.outcome = CombatOutcome.LOSE  # type: ignore[misc]


def test_resolve_attack_bad_arguments() -> None:
    with pytest.raises(junqi.UnknownNameError, match='unknown attack "bombard"') as info:
        junqi.resolve_attack("sanjun-modern", "gunboat", "commander", "bombard")
    assert isinstance(info.value, junqi.JunqiError) and isinstance(info.value, ValueError)
    with pytest.raises(junqi.OutOfRangeError, match="out of range"):
        junqi.resolve_attack("sanjun-modern", "gunboat", "commander", 4)
    with pytest.raises(junqi.UnknownNameError, match="unknown piece kind"):
        junqi.RuleSet("sanjun-modern").resolve_attack("admiral", "commander", "move")
    with pytest.raises(TypeError):
        junqi.resolve_attack("sanjun-modern", "gunboat", "commander", 1.5)  # type: ignore[arg-type]
    with pytest.raises(junqi.UnknownNameError):
        junqi.resolve_attack("chess", "gunboat", "commander", "move")


def test_no_obligation_at_the_start() -> None:
    for name in SANJUN + ["classic"]:
        game = junqi.Game(name, 5)
        for side in game.rules.sides:
            assert game.obligation(side) is None
        for side in game.rules.sides:
            game.deploy_random(side)
        for side in game.rules.sides:
            assert game.obligation(side) is None
    game = junqi.Game("sanjun-modern", 5)
    with pytest.raises(junqi.IllegalActionError, match="east is not in the game"):
        game.obligation("east")
    with pytest.raises(junqi.UnknownNameError):
        game.obligation("up")


def test_a_repelled_recon_must_move_away() -> None:
    """South's recon scouts North's trap from the air, is repelled and must move away on
    South's next turn: until it has, its moves are South's only legal moves."""
    rules = junqi.RuleSet("sanjun-modern")
    south = {p: k.id for p, k in rules.random_setup("south", 1).items()}
    north = {p: k.id for p, k in rules.random_setup("north", 2).items()}

    def put(setup: dict[str, str], point: str, kind: str) -> None:
        (other,) = [p for p, k in setup.items() if k == kind]
        setup[other], setup[point] = setup[point], setup[other]

    put(south, "i1^", "recon")
    put(north, "h10", "trap")
    game = junqi.Game(rules, 1)
    game.deploy("south", south)
    game.deploy("north", north)

    def quiet_move(player: str) -> junqi.Action:
        view = game.view(player)
        return next(
            m for m in game.legal_actions()
            if not game.board.is_air(m.from_) and view.piece_at(m.to) is None
        )

    game.play("i1^-i10^")
    game.play(quiet_move("north"))
    assert game.obligation("south") is None
    elsewhere = quiet_move("south")  # an ordinary move of another South piece
    (attacked,) = game.play("i10^-h10^").public  # the recon attacks the trap below h10^
    assert attacked.type == "attacked" and attacked.outcome == CombatOutcome.REPEL
    # The recon stays above the trap; from South's next turn on it must move away.
    assert game.obligation("south") == "h10^" and game.obligation(Side.NORTH) is None
    game.play(quiet_move("north"))
    assert game.to_act == Side.SOUTH and game.obligation(Side.SOUTH) == "h10^"
    moves = game.legal_actions()
    assert moves and {m.from_ for m in moves} == {"h10^"}
    assert not game.is_legal(elsewhere)
    with pytest.raises(junqi.IllegalActionError, match="must move away"):
        game.play(elsewhere)
    assert game.obligation("south") == "h10^"  # refused: nothing changed
    again = junqi.Game.from_record(game.record())
    assert again.obligation("south") == "h10^"
    game.play("h10^-i10^")
    assert game.obligation("south") is None
    game.play(quiet_move("north"))
    assert game.is_legal(elsewhere)
