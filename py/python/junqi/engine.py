"""Turn a policy function into a junqi engine: a program that plays one seat over the
line protocol of docs/protocol.md (version 1) on stdin/stdout.

A policy receives a :class:`junqi.Game` rebuilt from the seat's view string — its legal
moves are the seat's true legal moves, and nothing in it tells what the seat has not
seen (unknown pieces carry stand-in identities) — and the seat, and returns a move (a
:class:`junqi.Action` or its notation)::

    import random
    import junqi.engine

    def policy(game, seat):
        return random.choice(game.legal_actions())

    if __name__ == "__main__":
        junqi.engine.run(policy, name="random in Python")

The engine deploys with ``setup random`` (the referee draws a legal deployment) unless
``deploy`` is given: a function ``(rules, seat) -> dict`` of point to piece kind.
Options announced with ``options`` (``{name: default}``; int, bool or str) are set by
the referee with ``setoption`` and passed to the policy in ``engine.options``.
"""

from __future__ import annotations

import json
import sys
from typing import IO, Any, Callable, Mapping, Optional, Union

from . import Action, Game, RuleSet, Side

PROTOCOL_VERSION = 1
"""The protocol version this module speaks."""

Policy = Callable[[Game, Side], Union[Action, str]]
"""A policy: (game rebuilt from the seat's view, the seat) -> a move or its notation."""


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    return "string"


class Engine:
    """The state of an engine between referee lines (see :func:`run`)."""

    def __init__(
        self,
        policy: Policy,
        name: str = "python engine",
        deploy: Optional[Callable[[RuleSet, Side], Mapping[str, str]]] = None,
        options: Optional[Mapping[str, Any]] = None,
        author: str = "",
    ) -> None:
        self.policy = policy
        self.name = name
        self.author = author
        self.deploy_fn = deploy
        self.defaults = dict(options or {})
        self.options: dict[str, Any] = dict(self.defaults)
        self.seat: Optional[Side] = None
        self.rules: Optional[RuleSet] = None
        self.view: Optional[str] = None
        self.events: list[Any] = []

    def handle(self, line: str) -> list[str]:
        """The answer lines to one referee line (empty for most lines)."""
        cmd, _, rest = line.rstrip("\r\n").partition(" ")
        if cmd == "junqi":
            out = [f"id name {self.name}"]
            if self.author:
                out.append(f"id author {self.author}")
            out += [f"option {k} {_kind(v)} {v}" for k, v in self.defaults.items()]
            return out + ["ready"]
        if cmd == "setoption":
            name, _, value = rest.partition(" ")
            if name in self.defaults:
                d = self.defaults[name]
                self.options[name] = (
                    value == "true" if isinstance(d, bool) else int(value) if isinstance(d, int) else value
                )
            return []
        if cmd == "newgame":
            seat, _, rules = rest.partition(" ")
            self.seat = Side(seat)
            # (Custom JSON rule sets are read, but views rebuild only for presets.)
            self.rules = RuleSet.from_json(rules[5:]) if rules.startswith("json ") else RuleSet.preset(rules)
            self.view, self.events = None, []
            return []
        if cmd == "event":
            self.events.append(json.loads(rest))
            return []
        if cmd == "position":
            self.view = rest
            return []
        if cmd == "deploy":
            if self.deploy_fn is None or self.rules is None or self.seat is None:
                return ["setup random"]
            setup = dict(self.deploy_fn(self.rules, self.seat))
            return ["setup " + json.dumps(setup, separators=(",", ":"))]
        if cmd == "go":
            if self.view is None or self.seat is None:
                return ["info error go before position"]
            game = Game.from_position_string(self.view, 0)
            move = self.policy(game, self.seat)
            return ["action " + (move if isinstance(move, str) else move.notation)]
        if cmd == "draw":
            return ["draw decline"]
        return []


def run(
    policy: Policy,
    name: str = "python engine",
    deploy: Optional[Callable[[RuleSet, Side], Mapping[str, str]]] = None,
    options: Optional[Mapping[str, Any]] = None,
    stdin: Optional[IO[str]] = None,
    stdout: Optional[IO[str]] = None,
) -> None:
    """Plays the engine side of the protocol with ``policy`` until ``quit`` or the end
    of the input (default: the process's stdin and stdout)."""
    engine = Engine(policy, name=name, deploy=deploy, options=options)
    inp = stdin if stdin is not None else sys.stdin
    out = stdout if stdout is not None else sys.stdout
    for line in inp:
        if line.strip() == "quit":
            break
        for answer in engine.handle(line):
            out.write(answer + "\n")
        out.flush()
