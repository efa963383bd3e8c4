"""The engine's agents from Python: names, deploying and choosing from one side's
information, whole games, errors, the GIL released while thinking, and the agents as
policies of the Gymnasium and PettingZoo loops and of junqi.distributed (in process).
Budgets are tiny: this is about the surface, not the strength."""

from __future__ import annotations

import functools
import itertools
import json
import random
import sys
import threading
import time
from typing import Callable

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
    # The search it replaced, and the tree search's former name.
    assert junqi.Agent("pimc:iters=20,beliefs=plain", seed=0).name == "pimc:iters=20,beliefs=plain"
    assert junqi.Agent("ismcts:iters=20", seed=0).name == "search:iters=20"


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
    # These games end well before the cap (about 100-200 plies): a game still going
    # at 3000 plies is a failure, not a pass.
    assert game.is_over and game.result is not None, f"{rules}: not over after {game.ply} plies"
    assert game.ply < 3000
    record = game.record()
    for side in game.rules.sides:
        assert agents[side].act(game, side) is None  # nothing to do once the game is over
    assert game.record() == record


def test_play_stops_at_the_ply_cap() -> None:
    game = junqi.Game("classic", seed=3)
    agents = {"south": junqi.Agent("greedy", seed=0), "north": junqi.Agent("random", seed=1)}
    play(game, agents, max_plies=10)
    # Exactly at the cap (play() used to finish the round the cap fell in: ply 6 for
    # max_plies=5 in classic, 8 in siguo).
    assert not game.is_over and game.result is None
    assert game.ply == 10
    for rules, cap in (("classic", 5), ("siguo", 5)):
        g = junqi.Game(rules, seed=2)
        play(g, {s.id: junqi.Agent("random", seed=i) for i, s in enumerate(g.rules.sides)}, max_plies=cap)
        assert g.ply == cap, (rules, g.ply)
    side = game.to_act
    assert side is not None
    assert agents[side.id].act(game, side) is not None  # the game was cut short, not over


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


def stamps_inside(call: Callable[[], object]) -> tuple[int, float]:
    """Runs ``call()`` on this thread while another thread notes the time about every
    millisecond, each note taken holding the GIL. Returns how many notes fall in the
    middle half of the call (from a quarter of its duration after it started to a
    quarter before it ended) and the call's duration. A call that holds the GIL
    throughout gets none there: the other thread can note the time only just before the
    call takes the GIL and after it gives it back."""
    stamps: list[float] = []
    stop = threading.Event()
    running = threading.Event()

    def note() -> None:
        while not stop.is_set():
            stamps.append(time.perf_counter())
            running.set()
            time.sleep(0.001)

    t = threading.Thread(target=note)
    t.start()
    try:
        assert running.wait(10)
        start = time.perf_counter()
        call()
        end = time.perf_counter()
    finally:
        stop.set()
        t.join()
    quarter = (end - start) / 4
    return sum(start + quarter < s < end - quarter for s in stamps), end - start


def test_thinking_releases_the_gil() -> None:
    if not getattr(sys, "_is_gil_enabled", lambda: True)():
        pytest.skip("a free-threaded Python has no GIL to release")
    game = deployed_game(seed=6)
    side = game.to_act
    assert side is not None
    # A search with a clock of 500 ms: the other thread keeps running while it thinks.
    # The tree search reads the clock as it goes and stops at 95 % of it; what the test
    # needs is a middle half long enough for ten notes a millisecond apart.
    agent = junqi.Agent("search:ms=500", seed=0)
    inside, took = stamps_inside(lambda: agent.choose(game, side))
    assert took >= 0.1, f"a 500 ms search took only {took:.3f} s"
    assert inside >= 10, f"the other thread ran {inside} times in the middle {took / 2:.3f} s of choose"
    # The control: a call into C of about 300 ms that holds the GIL (sum over a range
    # never returns to the interpreter) gets no note in its middle half, so the
    # measurement tells the two apart.
    t0 = time.perf_counter()
    sum(range(10**6))
    n = int(10**6 * 0.3 / max(time.perf_counter() - t0, 1e-6))
    held, control_took = stamps_inside(lambda: sum(range(n)))
    assert control_took >= 0.05 and held == 0, (held, control_took)


def test_gymnasium_opponent_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("gymnasium")
    import junqi.gymnasium
    from junqi.gymnasium import env

    # The agents the environment makes, with their seeds.
    made: list[tuple[str, int | None]] = []
    real_agent = junqi.Agent

    def recording_agent(spec: str, seed: int | None = None) -> junqi.Agent:
        made.append((spec, seed))
        return real_agent(spec, seed=seed)

    monkeypatch.setattr(junqi.gymnasium, "Agent", recording_agent)
    e = env(rules="classic", seat="south", opponent="greedy", max_plies=40)
    obs, info = e.reset(seed=1)
    e.action_space.seed(0)
    terminated = truncated = False
    while not (terminated or truncated):
        action = e.action_space.sample(obs["action_mask"])
        obs, reward, terminated, truncated, info = e.step(action)
    game = e.game
    assert game is not None
    # The last agent made is North's for this episode (the first checked the name).
    assert made and all(spec == "greedy" for spec, _ in made)
    # North was deployed and played by exactly that agent: an agent named "greedy" with
    # the same seed, asked at every ply of a replay, deploys the same setup and chooses
    # every move North made.
    twin = real_agent("greedy", seed=made[-1][1])
    record = json.loads(game.record())
    replay = junqi.Game("classic", seed=record["seed"])
    north_moves = 0
    for entry in record["actions"]:
        if isinstance(entry, dict) and "deploy" in entry:
            if entry["deploy"] == "north":
                twin.deploy(replay, "north")
                assert json.loads(replay.player_record("north"))["setup"] == entry["setup"]
            else:
                replay.deploy(entry["deploy"], entry["setup"])
            continue
        assert isinstance(entry, str), entry
        if replay.to_act == junqi.Side.NORTH:
            assert twin.choose(replay, "north").notation == entry, f"ply {replay.ply}"
            north_moves += 1
        replay.play(entry)
    assert north_moves >= 5 and replay.record() == game.record()
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


def play_random(game: junqi.Game, seed: int, plies: int) -> list[str]:
    """Plays ``plies`` random legal actions (fewer if the game ends); returns them."""
    rng = random.Random(seed)
    actions = []
    for _ in range(plies):
        if game.is_over:
            break
        action = rng.choice(game.legal_actions())
        game.play(action)
        actions.append(action.notation)
    return actions


def own_kinds(game: junqi.Game, side: str) -> dict[str, junqi.PieceKind | None]:
    """Where ``side``'s pieces stand now and what they are (its own view tells it)."""
    return {p.point: p.kind for p in game.view(side).pieces if p.owner == junqi.Side(side)}


@functools.lru_cache(maxsize=None)
def mid_game_swaps() -> list[tuple[junqi.Game, junqi.Game, list[str]]]:
    """Pairs of classic games after 30 plies of random play, with combats, that differ
    only in two North pieces South cannot tell apart: the two swapped their kinds in
    North's setup, both still stand on the board, unrevealed, with the same candidate
    kinds in South's beliefs, and South's view (its event log included) is the same in
    both games. Returns (game, game with the swap, the points of the two pieces now);
    the games are not changed afterwards (choosing changes nothing)."""
    rules = junqi.RuleSet("classic")
    found = []
    for seed in (1, 2, 3):
        south = rules.random_setup("south", seed)
        north = rules.random_setup("north", 100 + seed)
        a = junqi.Game(rules, seed=seed)
        a.deploy("south", south)
        a.deploy("north", north)
        actions = play_random(a, seed, 30)
        assert a.to_act == junqi.Side.SOUTH
        combats = [e for e in a.events("south") if e.type == "attacked"]
        assert len(combats) >= 2, f"seed {seed}: only {len(combats)} combats"
        pairs = list(itertools.combinations(sorted(north), 2))
        random.Random(seed).shuffle(pairs)
        swaps = 0
        for x, y in pairs:
            if north[x] == north[y]:
                continue
            swapped = {**north, x: north[y], y: north[x]}
            b = junqi.Game(rules, seed=seed)
            b.deploy("south", south)
            try:
                b.deploy("north", swapped)
                for action in actions:
                    b.play(action)
            except junqi.JunqiError:
                continue  # not a legal setup, or the game went differently: seen
            if b.to_act != a.to_act or b.view("south") != a.view("south"):
                continue  # South would tell the games apart
            ka, kb = own_kinds(a, "north"), own_kinds(b, "north")
            differ = sorted(p for p in ka if ka[p] != kb.get(p))
            if len(differ) != 2:
                continue  # a swapped piece is off the board: nothing to tell apart now
            beliefs = a.beliefs("south")
            if beliefs.candidates(differ[0]) != beliefs.candidates(differ[1]):
                continue  # not alike to South (say, one has moved, so is no mine)
            found.append((a, b, differ))
            swaps += 1
            if swaps == 3:
                break
    return found


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
    # Mid-game: after combats, two North pieces South cannot tell apart change places.
    swaps = mid_game_swaps()
    assert len(swaps) >= 6, f"only {len(swaps)} swaps South cannot see"
    # Some of the swapped pieces have moved: not only the back rows.
    assert any(a.beliefs("south").has_moved(p) for a, _, points in swaps for p in points)
    for a, b, points in swaps:
        beliefs_a, beliefs_b = a.beliefs("south"), b.beliefs("south")
        for p in points:
            seen = a.view("south").piece_at(p)
            assert seen is not None and seen.kind is None and seen.owner == junqi.Side.NORTH
            assert len(beliefs_a.candidates(p)) > 1
            assert beliefs_a.candidates(p) == beliefs_b.candidates(p)
        for seed in (3, 4):
            x = junqi.Agent(spec, seed=seed).choose(a, "south")
            y = junqi.Agent(spec, seed=seed).choose(b, "south")
            assert x == y, f"{spec} chooses {x.notation} or {y.notation} at ply {a.ply} ({points} swapped)"
        assert (beliefs_a.mask() == beliefs_b.mask()).all()
