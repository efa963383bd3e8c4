"""``evaluate``: a round robin between named agents, a results table and Elo ratings."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Mapping, Optional, Sequence, Union

from .._junqi import RuleSet
from .cluster import run_tasks
from .elo import elo_ratings
from .play import GameSpec, Policy, check_policy, play_batch, seat_teams
from .progress import Progress

__all__ = ["AgentResult", "Evaluation", "MatchGame", "evaluate", "play_matches"]

RulesArg = Union[str, Mapping[str, Any], RuleSet]


@dataclass(frozen=True)
class MatchGame:
    """One game of an evaluation."""

    index: int
    agents: tuple[str, ...]
    """The agent of each seat, in ``rules.sides`` order."""
    winners: tuple[str, ...]
    """The winning seats' ids (empty for a draw or a game cut short)."""
    reason: Optional[str]
    plies: int
    record: str


@dataclass(frozen=True)
class AgentResult:
    """One agent's line of the table: its games, wins, draws, losses, score, Elo."""

    name: str
    games: int
    wins: int
    draws: int
    losses: int
    score: float
    """(wins + draws / 2) / games."""
    elo: float
    elo_low: float
    elo_high: float
    elo_stderr: float


@dataclass
class Evaluation:
    """The results of ``evaluate``: ``agents`` (one ``AgentResult`` per agent, by Elo),
    ``pairs`` (``{(a, b): (wins, draws, losses)}`` of ``a`` against ``b``) and every
    game. ``str()`` prints the table; ``to_dict()`` gives plain data (JSON-ready)."""

    rules: str
    seed: int
    confidence: float
    agents: list[AgentResult]
    pairs: dict[tuple[str, str], tuple[int, int, int]]
    games: list[MatchGame] = field(repr=False)

    def __str__(self) -> str:
        width = max([5] + [len(a.name) for a in self.agents])
        pct = f"{self.confidence:.0%} CI"
        lines = [
            f"{'agent':<{width}}  games    W    D    L  score     Elo  {pct}",
        ]
        for a in self.agents:
            lines.append(
                f"{a.name:<{width}}  {a.games:5d} {a.wins:4d} {a.draws:4d} {a.losses:4d}"
                f"  {a.score:5.3f} {a.elo:+7.1f}  [{a.elo_low:+.1f}, {a.elo_high:+.1f}]"
            )
        lines.append("")
        lines.append("pairs (W-D-L of the first against the second):")
        for (first, second), (w, d, l) in sorted(self.pairs.items()):
            lines.append(f"  {first} vs {second}: {w}-{d}-{l}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules,
            "seed": self.seed,
            "confidence": self.confidence,
            "agents": [asdict(a) for a in self.agents],
            "pairs": [
                {"agent": a, "opponent": b, "wins": w, "draws": d, "losses": l}
                for (a, b), (w, d, l) in sorted(self.pairs.items())
            ],
            "games": [asdict(g) for g in self.games],
        }


def play_matches(
    rules: RuleSet,
    run_seed: int,
    policies: Mapping[str, Policy],
    max_plies: Optional[int],
    specs: Sequence[GameSpec],
) -> list[MatchGame]:
    """Plays one batch of an evaluation's games: one Ray task."""
    played, _ = play_batch(rules, run_seed, specs, policies, max_plies, False)
    return [
        MatchGame(g.index, g.agents, tuple(g.winners), g.reason, g.plies, g.record)
        for g in played
    ]


def schedule(rules: RuleSet, names: Sequence[str], games: int) -> list[GameSpec]:
    """Every game of the round robin, in index order: for each pair of agents (in the
    order given), ``games`` games, alternating which agent holds the first team."""
    teams = seat_teams(rules)
    if len(teams) != 2:
        raise ValueError(
            f"{rules.name} has {len(teams)} teams: evaluate plays two agents a game"
        )
    seats = len(rules.sides)
    specs: list[GameSpec] = []
    for x in range(len(names)):
        for y in range(x + 1, len(names)):
            for k in range(games):
                first, second = (names[x], names[y]) if k % 2 == 0 else (names[y], names[x])
                agents = [""] * seats
                for s in teams[0]:
                    agents[s] = first
                for s in teams[1]:
                    agents[s] = second
                specs.append(GameSpec(len(specs), tuple(agents)))
    return specs


def evaluate(
    rules: RulesArg,
    agents: Mapping[str, Policy],
    games: int = 100,
    *,
    seed: int = 0,
    address: Optional[str] = None,
    batch: int = 50,
    max_plies: Optional[int] = None,
    confidence: float = 0.95,
    progress: bool = True,
    max_retries: int = 3,
) -> Evaluation:
    """A round robin between ``agents`` (``{name: policy}``, at least two): ``games``
    games for each pair, the seat assignments alternating (game 0 gives the first
    agent of the pair the first team — South, or South and North in siguo — game 1 the
    second, …). Game ``i`` of the schedule is seeded from (``seed``, ``i``); games run
    as Ray tasks of ``batch`` games (``address`` as in ``generate``). Returns the
    table: wins, draws (a game cut short by ``max_plies`` is a draw) and losses, and
    maximum-likelihood Elo ratings with ``confidence`` intervals
    (``junqi.distributed.elo``)."""
    names = list(agents)
    if len(names) < 2:
        raise ValueError("evaluate needs at least two agents")
    if games < 1:
        raise ValueError(f"games must be >= 1, not {games}")
    if batch < 1:
        raise ValueError(f"batch must be >= 1, not {batch}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), not {confidence}")
    for name, policy in agents.items():
        check_policy(name, policy)
    rule_set = rules if isinstance(rules, RuleSet) else RuleSet(rules)
    specs = schedule(rule_set, names, games)
    batches = [(specs[s : s + batch],) for s in range(0, len(specs), batch)]
    bar = Progress(len(specs), enabled=progress)
    results: list[MatchGame] = []
    shared = (rule_set, seed, dict(agents), max_plies)
    for _, part in run_tasks(
        play_matches, shared, batches, address=address, max_retries=max_retries
    ):
        results.extend(part)
        bar.advance(len(part))
    bar.finish()
    results.sort(key=lambda g: g.index)
    return _tabulate(rule_set, seed, names, results, confidence)


def _tabulate(
    rules: RuleSet,
    seed: int,
    names: list[str],
    results: list[MatchGame],
    confidence: float,
) -> Evaluation:
    from statistics import NormalDist

    teams = seat_teams(rules)
    seat_ids = [s.id for s in rules.sides]
    index = {name: k for k, name in enumerate(names)}
    wdl = {name: [0, 0, 0] for name in names}
    pairs: dict[tuple[str, str], list[int]] = {}
    scored: list[tuple[int, int, float]] = []
    for g in results:
        first, second = g.agents[teams[0][0]], g.agents[teams[1][0]]
        won = set(g.winners)
        if won & {seat_ids[s] for s in teams[0]}:
            score = 1.0
        elif won & {seat_ids[s] for s in teams[1]}:
            score = 0.0
        else:
            score = 0.5
        slot = {1.0: 0, 0.5: 1, 0.0: 2}[score]
        wdl[first][slot] += 1
        wdl[second][2 - slot] += 1
        a, b = sorted((first, second), key=index.__getitem__)
        line = pairs.setdefault((a, b), [0, 0, 0])
        line[slot if a == first else 2 - slot] += 1
        scored.append((index[first], index[second], score))
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    ratings = elo_ratings(len(names), scored, z=z)
    rows = []
    for name, r in zip(names, ratings):
        w, d, l = wdl[name]
        n = w + d + l
        rows.append(
            AgentResult(name, n, w, d, l, (w + d / 2) / n if n else 0.0,
                        r.elo, r.low, r.high, r.stderr)
        )
    rows.sort(key=lambda a: -a.elo)
    return Evaluation(
        rules.name,
        seed,
        confidence,
        rows,
        {k: (v[0], v[1], v[2]) for k, v in pairs.items()},
        results,
    )
