#!/usr/bin/env python3
"""Generate core/data/boards/classic.json from the board described in docs/classic.md.

The JSON file is the source of truth the engine loads; this script documents how it was
derived and is kept so the board can be regenerated and reviewed. Run from the repo root:
    python3 tools/gen_classic_board.py > core/data/boards/classic.json
"""
import json

COLS = "abcde"
HQ = {"b1", "d1", "b12", "d12"}
CAMPS = {"b3", "d3", "c4", "b5", "d5", "b10", "d10", "c9", "b8", "d8"}


def name(c, r):
    return f"{COLS[c]}{r}"


def is_rail(c, r):
    return r in (2, 6, 7, 11) or (c in (0, 4) and 2 <= r <= 11)


def side(r):
    return "south" if r <= 6 else "north"


points = []
for r in range(1, 13):
    for c in range(5):
        n = name(c, r)
        role = "hq" if n in HQ else "camp" if n in CAMPS else "post"
        points.append({
            "name": n, "x": c, "y": r - 1, "role": role, "side": side(r),
            "depth": r if r <= 6 else 13 - r,
        })

road, rail = [], []
for r in range(1, 13):
    for c in range(5):
        for dc, dr in ((1, 0), (0, 1)):
            c2, r2 = c + dc, r + dr
            if c2 >= 5 or r2 > 12:
                continue
            a, b = name(c, r), name(c2, r2)
            if is_rail(c, r) and is_rail(c2, r2):
                if {a, b} in ({"b6", "b7"}, {"d6", "d7"}):
                    continue
                rail.append(f"{a}-{b}")
            elif side(r) == side(r2):
                road.append(f"{a}-{b}")
diag = set()
for camp in sorted(CAMPS):
    c, r = COLS.index(camp[0]), int(camp[1:])
    for dc in (-1, 1):
        for dr in (-1, 1):
            c2, r2 = c + dc, r + dr
            if 0 <= c2 < 5 and 1 <= r2 <= 12:
                diag.add(tuple(sorted((camp, name(c2, r2)), key=lambda n: (int(n[1:]), n[0]))))
road += [f"{a}-{b}" for a, b in sorted(diag, key=lambda e: (int(e[0][1:]), e[0][0], int(e[1][1:]), e[1][0]))]

lines = [[name(c, r) for c in range(5)] for r in (2, 6, 7, 11)]
lines += [[name(c, r) for r in range(2, 12)] for c in (0, 4)]
lines.append(["c6", "c7"])

board = {
    "name": "classic",
    "description": "陆战棋: the 60-point two-player board (docs/classic.md)",
    "columns": COLS,
    "rows": 12,
    "points": points,
    "edges": {"road": road, "railway": rail},
    "rail_lines": lines,
}
print(json.dumps(board, ensure_ascii=False, indent=1))
