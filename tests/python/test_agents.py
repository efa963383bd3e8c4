"""The engine's agents from Python: names, deploying and choosing from one side's
information, whole games, errors, the GIL released while thinking, and the agents as
policies of the Gymnasium and PettingZoo loops and of junqi.distributed (in process).
Budgets are tiny: this is about the surface, not the strength."""

from __future__ import annotations

import json
import threading

import pytest

import junqi
from junqi.agents import LEVELS, level, play

TINY = "search:iters=20"


def deployed_game(rules: str = "classic", seed: int = 1) -> junqi.Game:
    game = junqi.Game(rules, seed=seed)
    for side in game.rules.sides:
        if side not in game.deployed:
            game.deploy_random(side)
    return game


def test_names_and_repr() -> None:
    assert junqi.Agent("greedy", seed=0).name == "greedy"
    assert junqi.Agent("random").name == "random"
    search = junqi.Agent("search", seed=0)
    assert search.name.startswith("search:")
    assert repr(search) == f"Agent({search.name!r})"
    assert junqi.Agent(search.name, seed=0).name == search.name  # the name builds it again
    assert LEVELS[3] == "search:3" and level(1).name.startswith("search:")
    assert junqi.agents.Agent is junqi.Agent


@pytest.mark.parametrize(
    "spec, error",
    [
        ("grandmaster", junqi.UnknownNameError),
        ("search:9", junqi.OutOfRangeError),
        ("search:iters=0", junqi.OutOfRangeError),
        ("", junqi.UnknownNameError),
    ],
)
def test_bad_names_are_refused_by_kind(spec: str, error: type[Exception]) -> None:
    with pytest.raises(error) as e:
        junqi.Agent(spec)
    assert isinstance(e.value, junqi.JunqiError) and isinstance(e.value, ValueError)
    assert str(e.value)
    with pytest.raises(junqi.OutOfRangeError, match="level 7"):
        level(7)


def test_choose_is_a_legal_move_and_repeats_with_the_seed() -> None:
    game = deployed_game()
    side = game.to_act
    assert side is not None
    record = game.record()
    for spec in ["random", "greedy", TINY]:
        move = junqi.Agent(spec, seed=5).choose(game, side)
        assert isinstance(move, junqi.Action)
        assert move in game.legal_actions()
        assert junqi.Agent(spec, seed=5).choose(game, side) == move
    assert game.record() == record  # choosing changes nothing


def test_refusals_leave_the_game_unchanged() -> None:
    game = junqi.Game("classic", seed=2)
    bot = junqi.Agent("greedy", seed=0)
    with pytest.raises(junqi.WrongPhaseError, match="deployment phase"):
        bot.choose(game, "south")
    with pytest.raises(junqi.SideNotInGameError, match="not in the game"):
        bot.deploy(game, "east")
    report = bot.deploy(game, "south")
    assert [e.type for e in report.public] == ["deployed"]
    with pytest.raises(junqi.WrongPhaseError, match="already deployed"):
        bot.deploy(game, "south")
    bot.deploy(game, "north")
    record = game.record()
    other = "north" if game.to_act == junqi.Side.SOUTH else "south"
    with pytest.raises(junqi.NotYourTurnError, match="turn"):
        bot.choose(game, other)
    assert bot.act(game, other) is None  # nothing to do is not an error
    assert game.record() == record
    with pytest.raises(junqi.WrongPhaseError):
        bot.deploy(junqi.Game("fanqi", seed=1), "south")  # 翻棋 deals


@pytest.mark.parametrize("rules", ["classic", "fanqi", "siguo"])
def test_whole_games_between_agents(rules: str) -> None:
    game = junqi.Game(rules, seed=3)
    specs = ["greedy", "random"]
    agents = {side: junqi.Agent(specs[i % 2], seed=i) for i, side in enumerate(game.rules.sides)}
    play(game, agents, max_plies=3000)
    assert game.is_over or game.ply == 3000
    for side in game.rules.sides:
        assert agents[side].act(game, side) is None or not game.is_over


def test_act_deploys_then_plays() -> None:
    game = junqi.Game("classic", seed=4)
    bots = {"south": junqi.Agent(TINY, seed=1), "north": junqi.Agent("greedy", seed=2)}
    assert bots["south"].act(game, "south") is not None  # deploys
    assert junqi.Side.SOUTH in game.deployed
    assert bots["south"].act(game, "south") is None  # waits for North to deploy
    bots["north"].act(game, "north")
    for _ in range(4):
        side = game.to_act
        assert side is not None
        report = bots[side.id].act(game, side)
        assert isinstance(report, junqi.Report)
    assert game.ply == 4
    with pytest.raises(ValueError, match="no agent plays north"):
        play(game, {"south": bots["south"]})


def test_thinking_releases_the_gil() -> None:
    game = deployed_game(seed=6)
    side = game.to_act
    assert side is not None
    ticks = 0
    done = threading.Event()

    def count() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1

    t = threading.Thread(target=count)
    t.start()
    try:
        junqi.Agent("search:iters=300", seed=0).choose(game, side)
    finally:
        done.set()
        t.join()
    assert ticks > 0


def test_gymnasium_opponent_by_name() -> None:
    pytest.importorskip("gymnasium")
    from junqi.gymnasium import env

    e = env(rules="classic", seat="south", opponent="greedy", max_plies=40)
    obs, info = e.reset(seed=1)
    terminated = truncated = False
    while not (terminated or truncated):
        action = e.action_space.sample(obs["action_mask"])
        obs, reward, terminated, truncated, info = e.step(action)
    with pytest.raises(junqi.UnknownNameError):
        env(opponent="grandmaster")


def test_pettingzoo_seat_played_by_an_agent() -> None:
    pytest.importorskip("pettingzoo")
    from junqi.pettingzoo import env

    e = env(rules="classic", max_plies=20)
    e.reset(seed=2)
    bot = junqi.Agent("greedy", seed=0)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        action = e.unwrapped.choose(bot) if agent == "north" else e.unwrapped.choose("random", seed=1)
        assert obs["action_mask"][action] == 1
        e.step(action)


def test_distributed_evaluate_takes_agent_names_in_process() -> None:
    from junqi.distributed import evaluate

    result = evaluate("classic", {"greedy": "greedy", "random": "random"}, games=2,
                      address="local-process", seed=1, max_plies=400, progress=False)
    assert sum(r.games for r in result.agents) == 4
    with pytest.raises(ValueError, match="unknown built-in policy 'grandmaster'"):
        evaluate("classic", {"a": "grandmaster", "b": "random"}, games=2,
                 address="local-process", progress=False)


def test_distributed_cli_takes_agent_names(capsys: pytest.CaptureFixture[str]) -> None:
    from junqi.distributed.__main__ import main as cli

    assert cli(["evaluate", "--rules", "classic", "--agent", "g=greedy",
                "--agent", f"s={TINY}", "--games", "2", "--max-plies", "30",
                "--address", "local-process", "--no-progress", "--json"]) == 0
    table = json.loads(capsys.readouterr().out)
    assert sorted(a["name"] for a in table["agents"]) == ["g", "s"]


@pytest.mark.parametrize("spec", ["random", "greedy", TINY])
def test_the_choice_ignores_what_the_side_has_not_seen(spec: str) -> None:
    # Two games that differ only in North's setup, which South has not seen.
    choices = []
    for north_seed in (1, 2):
        game = junqi.Game("classic", seed=9)
        game.deploy_random("south", seed=7)
        game.deploy_random("north", seed=north_seed)
        choices.append(junqi.Agent(spec, seed=3).choose(game, "south"))
    assert choices[0] == choices[1]
