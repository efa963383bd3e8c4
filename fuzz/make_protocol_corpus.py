"""Writes the seed corpus of the `protocol` fuzz target (fuzz/corpus/protocol/) from real
sessions: `junqi match` games between built-in engines, one seat of each game behind a
proxy that logs every line either way, in the transcript form of docs/protocol.md
(`> ` from the referee, `< ` from the engine).

    python3 fuzz/make_protocol_corpus.py [JUNQI_BINARY]     # default target/release/junqi

Each session is cut into small inputs: its opening (handshake, options, newgame,
deployment) and a few single turns (the newgame line, the events since the last turn,
the position, go, the answer), each after the target's first byte (the agent and the
framing limit). Inputs kept from findings (`finding-*`) stay. Needs Python 3.9+ only.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading

FUZZ = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(FUZZ, "corpus", "protocol")

# (name, rules: a preset or a rule set given as JSON, agents (with engine flags), max
# plies, turns kept, more `junqi match` arguments)
SESSIONS = [
    ("classic", "classic", ("random", "greedy"), 24, (1, 4, 9), []),
    ("siguo", "siguo", ("random", "random"), 20, (1, 5), []),
    ("fanqi", "fanqi", ("greedy", "random"), 16, (1, 6), []),
    ("sanjun", "sanjun-modern", ("random", "random"), 24, (1, 7), []),
    ("custom", {"extends": "classic", "name": "classic-scouts", "options": {"engineer_scouts": "attacker"}},
     ("random", "greedy"), 12, (2,), []),
    # Draws: the proxied engine is asked (draw <ms>) and accepts; then it offers.
    ("draw-asked", "classic", ("random --draw accept", "random --draw offer"), 12, (1,), []),
    ("draw-offered", "classic", ("random --draw offer", "random --draw agent"), 8, (1, 2), []),
    # A game clock: clock <left> <increment> before each go.
    ("clock", "classic", ("greedy", "random"), 16, (1, 5), ["--time-control", "30+0.5"]),
]


def proxy(log: str, command: list[str]) -> None:
    """Runs `command`, passing lines both ways and logging them in order."""
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    lock = threading.Lock()
    # One log per process: in 四国 an engine plays two seats, a process each.
    with open(f"{log}.{os.getpid()}", "wb") as f:
        def engine_out() -> None:
            assert child.stdout is not None
            for line in child.stdout:
                with lock:
                    f.write(b"< " + line)
                    f.flush()
                sys.stdout.buffer.write(line)
                sys.stdout.buffer.flush()

        t = threading.Thread(target=engine_out)
        t.start()
        for line in sys.stdin.buffer:
            with lock:
                f.write(b"> " + line)
                f.flush()
            try:
                child.stdin.write(line)
                child.stdin.flush()
            except BrokenPipeError:
                break
        child.stdin.close()
        t.join()
    child.wait()


def session(junqi: str, rules: str | dict[str, object], agents: tuple[str, str], plies: int, tmp: str,
            extra: list[str]) -> list[bytes]:
    log = os.path.join(tmp, f"session-{len(os.listdir(tmp))}")
    wrapped = f"{sys.executable} {os.path.abspath(__file__)} --proxy {log} {junqi} engine --agent {agents[0]}"
    if isinstance(rules, dict):
        rules = json.dumps(rules)
    subprocess.run(
        [junqi, "match", "--engine", f"a={wrapped}", "--engine", f"b={junqi} engine --agent {agents[1]}",
         "--rules", rules, "--games", "1", "--time", "2s", "--max-plies", str(plies), "--seed", "11", *extra],
        check=True, capture_output=True,
    )
    # The longest session of the proxied engine (the match plays each seed twice).
    logs = [os.path.join(tmp, f) for f in os.listdir(tmp) if f.startswith(os.path.basename(log) + ".")]
    with open(max(logs, key=os.path.getsize), "rb") as f:
        return f.read().splitlines(keepends=True)


def cut(lines: list[bytes], turns: tuple[int, ...]) -> list[tuple[str, bytes]]:
    """The opening and the chosen turns of one session."""
    newgame = next(i for i, l in enumerate(lines) if l.startswith(b"> newgame "))
    gos = [i for i, l in enumerate(lines) if l.startswith(b"> go ")]
    first_position = next((i for i, l in enumerate(lines) if l.startswith(b"> position ")), len(lines))
    out = [("opening", b"".join(lines[:first_position]))]
    for k in turns:
        if k > len(gos):
            continue
        go = gos[k - 1]
        start = gos[k - 2] + 2 if k >= 2 else first_position
        out.append((f"turn{k}", lines[newgame] + b"".join(lines[start:go + 2])))
    out.append(("end", lines[newgame] + b"".join(lines[gos[-1] + 2:]) if gos else b""))
    return out


def hostile() -> list[tuple[str, bytes]]:
    """Hand-made lines both sides must refuse or ignore without harm."""
    return [
        ("crlf", b"> junqi 1\r\n< id name crlf\r\n< ready\r\n> newgame N classic\r\n> deploy 1000\r\n"),
        ("not-utf8", b"> junqi 1\n> setoption agent rand\xffom\n> newgame S clas\xc3sic\n< id name \xfe\xff\n"),
        ("long-field", b"> newgame S " + b"\x01" * 600 + b"\n> position " + b"x" * 700 + b"\n> go 1\n"),
        ("json-field", b'> newgame S json {"extends": "classic", "name": "x", "a\\nb\\rc": 1}\n> deploy 1\n'),
        ("seat-out", b"> newgame W classic\n> deploy 1000\n> draw 100\n"),
        ("before-newgame", b"> go 1000\n> deploy 1000\n> draw 1\n> position classic - move S 0 0\n> go 1\n"),
        ("answers", b'< setup random\n< setup {"a1": "flag", "zz": "bomb"}\n< setup [1]\n< action \ra1-a2\n'
                    b"< action flip c3\n< action\n< draw accept\n< option\n< option x\n< option x int\n"),
        ("quit", b"> junqi 1\n> quit now\n> junqi 1\n"),
        ("draws-clock", b"> setoption draw offer\n> setoption draw never\n> newgame S classic\n> clock 5\n"
                        b"> clock -1 2\n> clock 99999999999999999999 0\n> setup {\"a1\": 3}\n> setup [\n"
                        b"> event {\"type\": \"moved\"}\n> draw\n< draw offer\n< draw offer\n< draw maybe\n"),
    ]


def main() -> None:
    junqi = sys.argv[1] if len(sys.argv) > 1 else os.path.join(FUZZ, "..", "target", "release", "junqi")
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if not f.startswith("finding-"):
            os.remove(os.path.join(OUT, f))
    n = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, rules, agents, plies, turns, extra in SESSIONS:
            for part, data in cut(session(junqi, rules, agents, plies, tmp, extra), turns):
                # First byte: the agent (greedy on odd bytes) and the framing limit.
                choice = n * 38 % 256 | (agents[0].split()[0] == "greedy")
                with open(os.path.join(OUT, f"{name}-{part}"), "wb") as f:
                    f.write(bytes([choice]) + data)
                n += 1
    for name, data in hostile():
        with open(os.path.join(OUT, f"hostile-{name}"), "wb") as f:
            f.write(bytes([n * 38 % 256]) + data)
        n += 1
    sizes = [os.path.getsize(os.path.join(OUT, f)) for f in os.listdir(OUT)]
    print(f"{len(sizes)} inputs, {sum(sizes)} bytes, largest {max(sizes)}")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--proxy":
        proxy(sys.argv[2], sys.argv[3:])
    else:
        main()
