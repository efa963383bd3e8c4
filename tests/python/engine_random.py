"""A random engine in Python: the whole program (docs/protocol.md, junqi.engine)."""

import random

import junqi.engine

rng = random.Random(1)


def policy(game: junqi.Game, seat: junqi.Side) -> junqi.Action:
    return rng.choice(game.legal_actions())


if __name__ == "__main__":
    junqi.engine.run(policy, name="python random")
