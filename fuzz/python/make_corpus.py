"""Writes the seed corpora of the atheris harnesses: fuzz/python/corpus/TARGET/.

    python fuzz/python/make_corpus.py

Deterministic (fixed seeds): presets' rule-set and board JSON, setups, short records and
player records, notation, and byte strings for the choice-driven harnesses. Each corpus
stays well under 300 KB.
"""

from __future__ import annotations

import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import junqi  # noqa: E402
from fuzzlib import PRESETS, Bytes, deploy_all, play_random  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def write(target: str, name: str, data: bytes) -> None:
    os.makedirs(os.path.join(ROOT, target), exist_ok=True)
    with open(os.path.join(ROOT, target, name), "wb") as f:
        f.write(data)


def short_game(rules: str, seed: int, plies: int) -> junqi.Game:
    game = junqi.Game(rules, seed=seed)
    if game.phase == junqi.Phase.DEPLOY:
        for i, side in enumerate(game.rules.sides):
            game.deploy_random(side, seed=seed * 10 + i)
    rng = random.Random(seed)
    for _ in range(plies):
        if game.is_over:
            break
        game.play_id(rng.choice(game.legal_action_ids()))
    return game


def rules_json() -> None:
    for i, name in enumerate(PRESETS):
        write("rules_json", f"{name}.json", bytes([i % 2 * 2]) + junqi.RuleSet(name).to_json().encode())
    variants = {
        "variant": {"extends": "classic", "name": "v", "options": {"engineer_scouts": "attacker", "max_timeouts": 1}},
        "siguo-dealt": {"extends": "siguo", "name": "siguo-dealt", "options": {"max_timeouts": 1},
                        "deployment": {"roles": ["post", "hq"], "constraints": [], "deal": True}},
        "sanjun-abilities": {"extends": "sanjun-modern", "name": "a", "abilities": {"tank": ["strike"]}},
        "no-name": {"extends": "classic"},
    }
    for name, value in variants.items():
        write("rules_json", f"{name}.json", b"\x01" + json.dumps(value).encode())


def board_json() -> None:
    seen = set()
    for name in PRESETS:
        board = junqi.RuleSet(name).board
        if board.name not in seen:
            seen.add(board.name)
            write("board_json", f"{board.name}.json", board.to_json().encode())


def setup() -> None:
    presets = ("classic", "siguo", "siguo-2p", "sanjun-modern", "sanjun-book", "fanqi")
    for choice in range(64):
        rules = junqi.RuleSet(presets[choice % len(presets)])
        side = junqi.Side.members()[(choice >> 3) % 4]
        if side not in rules.sides or rules.name == "fanqi" or choice % 5:
            continue
        s = {p: k.id for p, k in rules.random_setup(side, choice).items()}
        write("setup", f"{rules.name}-{side}-{choice}", bytes([choice]) + json.dumps(s).encode())
    write("setup", "empty-dict", b"\x20{}")
    write("setup", "bad-kind", b"\x00" + json.dumps({"a1": "dragon"}).encode())


def record() -> None:
    for i, name in enumerate(PRESETS):
        game = short_game(name, i + 3, 24)
        write("record", f"{name}.json", bytes([i % 2]) + game.record().encode())
        if i % 3 == 0:
            player = game.rules.sides[0]
            write("record", f"{name}-{player}.json", b"\x00" + game.player_record(player).encode())


def notation() -> None:
    texts = ["a1-a1", "flip c3", "a1^-a8^", "c3-c5^", "a6-a7", "xyz", "", "a2 - a3", "a99-a1", "工兵"]
    for choice in range(len(PRESETS)):
        plies = choice * 3
        game = junqi.Game(PRESETS[choice], seed=choice)
        b = Bytes(bytes([plies, choice]) * 8)
        deploy_all(game, b)
        play_random(game, b, plies % 24)
        moves = game.legal_actions()
        if moves:
            write("notation", f"{PRESETS[choice]}-legal", bytes([choice, plies]) + moves[0].notation.encode())
        write("notation", f"{PRESETS[choice]}-odd", bytes([choice | 0x80, plies]) + texts[choice].encode())


def position_string() -> None:
    """Real position and view strings of every preset (deployment, play, the end), as
    text (first byte even); and choices for the edited form (first byte odd)."""
    for i, name in enumerate(PRESETS):
        for plies in (0, 9) if name != "fanqi" else (3, 9):
            game = short_game(name, i + 1, plies) if plies else junqi.Game(name, seed=i + 1)
            if plies == 0 and game.phase == junqi.Phase.DEPLOY:
                game.deploy_random(game.rules.sides[0], seed=i)
            side = game.rules.sides[-1]
            write("position_string", f"{name}-{plies}", bytes([0, i]) + game.position_string().encode())
            write("position_string", f"{name}-{plies}-view", bytes([2, i]) + game.view_string(side).encode())
        if i % 3 == 0:
            game = short_game(name, i + 1, 5)
            game.resign(game.rules.sides[0])
            write("position_string", f"{name}-over", bytes([4, i]) + game.position_string().encode())
    rng = random.Random("position_string")
    for i in range(8):
        write("position_string", f"edit{i}", bytes([1 | i << 1] + [rng.randrange(256) for _ in range(40)]))


def engine() -> None:
    """The referee's lines of real sessions: the `>` lines of the cargo-fuzz corpus
    fuzz/corpus/protocol (made from `junqi match` games by fuzz/make_protocol_corpus.py)."""
    sessions = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus", "protocol")
    for i, name in enumerate(sorted(os.listdir(sessions))):
        with open(os.path.join(sessions, name), "rb") as f:
            lines = f.read()[1:].split(b"\n")
        referee = [line[2:] if line.startswith(b"> ") else line for line in lines if not line.startswith(b"<")]
        write("engine", name, bytes([i * 13 % 256]) + b"\n".join(referee))


def random_bytes(target: str, count: int, length: int, first: list[int] | None = None) -> None:
    rng = random.Random(target)
    for i in range(count):
        data = bytearray(rng.randrange(256) for _ in range(length))
        if first is not None:
            data[0] = first[i % len(first)]
        write(target, f"r{i}", bytes(data))


def main() -> None:
    # Regenerates the seeds; inputs kept from findings (finding-*) stay.
    for target in os.listdir(ROOT) if os.path.isdir(ROOT) else []:
        for f in os.listdir(os.path.join(ROOT, target)):
            if not f.startswith("finding-"):
                os.remove(os.path.join(ROOT, target, f))
    rules_json()
    board_json()
    setup()
    record()
    notation()
    position_string()
    engine()
    random_bytes("action_ids", len(PRESETS), 160, list(range(len(PRESETS))))
    random_bytes("game_calls", 12, 200, list(range(12)))
    random_bytes("vector_env", 8, 120)
    for target in sorted(os.listdir(ROOT)):
        files = os.listdir(os.path.join(ROOT, target))
        size = sum(os.path.getsize(os.path.join(ROOT, target, f)) for f in files)
        print(f"{target}: {len(files)} inputs, {size} bytes")
        assert size < 300_000, target


if __name__ == "__main__":
    main()
