"""``python -m junqi.distributed generate|evaluate ...`` (``--help`` for each)."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path
from typing import Any, Optional, Sequence

from .play import Policy, is_agent_spec
from .selfplay import generate
from .tournament import evaluate


def _rules(text: str) -> Any:
    """A preset name, a JSON file, or JSON text."""
    if text.lstrip().startswith("{"):
        return text
    path = Path(text)
    if text.endswith(".json") or (path.exists() and path.is_file()):
        return path.read_text(encoding="utf-8")
    return text


def _policy(spec: str) -> Policy:
    """``random``, an agent's name (``greedy``, ``search:3``, ``search:iters=200``), or
    ``module:attribute`` naming a callable or a factory's result."""
    if spec == "random" or is_agent_spec(spec):
        return spec
    module, sep, attr = spec.partition(":")
    if not sep or not module or not attr:
        raise argparse.ArgumentTypeError(
            f"policy {spec!r}: expected 'random', an agent ('greedy', 'search:3') or 'module:callable'"
        )
    # argparse turns only ArgumentTypeError, TypeError and ValueError into its usage
    # and status 2: a module or attribute that is not there must be one of them too.
    try:
        target: Any = importlib.import_module(module)
        for part in attr.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError) as e:
        raise argparse.ArgumentTypeError(f"policy {spec!r}: {e}") from None
    return target


def _agent(spec: str) -> tuple[str, Policy]:
    name, sep, policy = spec.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"agent {spec!r}: expected NAME=POLICY")
    return name, _policy(policy)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m junqi.distributed",
        description="Self-play data and evaluation of junqi agents on a Ray cluster.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--rules", default="classic",
                       help="preset name, rule-set JSON file or JSON text (default classic)")
        p.add_argument("--address", default=None,
                       help="Ray cluster: auto, HOST:PORT, ray://HOST:PORT, or "
                            "local-process (no Ray); default: start a local cluster")
        p.add_argument("--max-plies", type=int, default=None,
                       help="cut games short after this many plies (a draw)")
        p.add_argument("--max-retries", type=int, default=3,
                       help="reruns of a task whose worker died (default 3)")
        p.add_argument("--no-progress", action="store_true",
                       help="no progress line on stderr")

    g = sub.add_parser("generate", help="play seeded games into Parquet shards")
    common(g)
    g.add_argument("--games", type=int, required=True)
    g.add_argument("--out", required=True, help="output directory")
    g.add_argument("--batch", type=int, default=100, help="games per task and shard")
    g.add_argument("--seed", type=int, default=None,
                   help="run seed (default: the run in --out, or a fresh one)")
    g.add_argument("--steps", action="store_true", help="also write per-step shards")
    g.add_argument("--policy", type=_policy, default="random",
                   help="random (default), an agent (greedy, search:3, ...) or module:callable")

    e = sub.add_parser("evaluate", help="round robin between agents, with Elo")
    common(e)
    e.add_argument("--agent", type=_agent, action="append", required=True,
                   help="NAME=POLICY (random, an agent such as greedy or search:3, or module:callable); at least two")
    e.add_argument("--games", type=int, default=100, help="games per pair of agents")
    e.add_argument("--batch", type=int, default=50, help="games per task")
    e.add_argument("--seed", type=int, default=0)
    e.add_argument("--json", action="store_true", help="print the results as JSON")

    args = parser.parse_args(argv)
    try:
        if args.command == "generate":
            result = generate(
                _rules(args.rules), args.games, args.out, args.policy,
                address=args.address, batch=args.batch, seed=args.seed,
                steps=args.steps, max_plies=args.max_plies,
                progress=not args.no_progress, max_retries=args.max_retries,
            )
            print(
                f"{result.out}: {result.games} games (seed {result.seed}); "
                f"{result.played} played now in {len(result.shards_written)} shards, "
                f"{result.shards_skipped} shards already there"
            )
        else:
            agents = dict(args.agent)
            if len(agents) != len(args.agent):
                parser.error("agent names must differ")
            evaluation = evaluate(
                _rules(args.rules), agents, args.games, seed=args.seed,
                address=args.address, batch=args.batch, max_plies=args.max_plies,
                progress=not args.no_progress, max_retries=args.max_retries,
            )
            if args.json:
                print(json.dumps(evaluation.to_dict(), indent=2))
            else:
                print(evaluation)
    except (ValueError, TypeError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
