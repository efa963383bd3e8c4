#!/usr/bin/env python3
"""Generate core/data/boards/siguo.json from the board described in docs/siguo.md.

A 17 x 17 lattice, (r, c) zero-based from the top-left; a point is named by its column
letter a..q (c = 0..16) and row number 17 - r, so South's back row is row 1. North's
half is laid out like one half of the classic board; South, West and East are North
rotated by 180, 90 and 270 degrees about (8, 8). Run from the repo root:
    python3 tools/gen_siguo_board.py > core/data/boards/siguo.json
"""
import json

HQ = {(0, 1), (0, 3)}                       # local (row from back, column)
CAMPS = {(2, 1), (2, 3), (3, 2), (4, 1), (4, 3)}


def local_rail(lr, lc):
    return lr in (1, 5) or (lc in (0, 4) and 1 <= lr <= 5)


# Local (lr, lc) of a half -> global (r, c). North: (lr, 6 + lc).
def north(lr, lc):
    return (lr, 6 + lc)


ROT = {
    "north": lambda r, c: (r, c),
    "south": lambda r, c: (16 - r, 16 - c),
    "west": lambda r, c: (16 - c, r),
    "east": lambda r, c: (c, 16 - r),
}


def name(r, c):
    return f"{chr(ord('a') + c)}{17 - r}"


points, info = [], {}
for side in ("south", "east", "north", "west"):
    for lr in range(6):
        for lc in range(5):
            r, c = ROT[side](*north(lr, lc))
            role = "hq" if (lr, lc) in HQ else "camp" if (lr, lc) in CAMPS else "post"
            info[(r, c)] = dict(side=side, lr=lr, lc=lc, rail=local_rail(lr, lc))
            points.append({"name": name(r, c), "x": c, "y": 16 - r, "role": role,
                           "side": side, "depth": lr + 1})
CENTRE = [(r, c) for r in (6, 8, 10) for c in (6, 8, 10)]
for (r, c) in CENTRE:
    info[(r, c)] = dict(side=None, rail=True)
    points.append({"name": name(r, c), "x": c, "y": 16 - r, "role": "post", "depth": 0})

road, rail = [], []


def edge(a, b):
    return f"{name(*a)}-{name(*b)}"


# Inside each half: orthogonal neighbours; railway between railway points.
for (r, c), p in info.items():
    if p["side"] is None:
        continue
    for dr, dc in ((0, 1), (1, 0)):
        q = (r + dr, c + dc)
        if q in info and info[q]["side"] == p["side"]:
            (rail if p["rail"] and info[q]["rail"] else road).append(edge((r, c), q))
# Camp diagonals.
diag = set()
for (r, c), p in info.items():
    if p["side"] is not None and (p["lr"], p["lc"]) in CAMPS:
        for dr in (-1, 1):
            for dc in (-1, 1):
                q = (r + dr, c + dc)
                if q in info and info[q]["side"] == p["side"]:
                    diag.add(tuple(sorted([(r, c), q])))
road += [edge(a, b) for a, b in sorted(diag)]
# Centre grid.
for (r, c) in CENTRE:
    for q in ((r, c + 2), (r + 2, c)):
        if q in CENTRE:
            rail.append(edge((r, c), q))
# Front links at local columns 0, 2, 4, and the corner arcs.
links = []
for side in ("south", "east", "north", "west"):
    for lc in (0, 2, 4):
        a = ROT[side](*north(5, lc))
        b = ROT[side](6, 6 + lc)
        links.append((a, b))
arcs = [((5, 6), (6, 5)), ((5, 10), (6, 11)), ((11, 6), (10, 5)), ((11, 10), (10, 11))]
rail += [edge(a, b) for a, b in links + arcs]

# Straight lines.
def col(c, rows):
    return [name(r, c) for r in rows]


def row(r, cols):
    return [name(r, c) for c in cols]


lines = []
full = [1, 2, 3, 4, 5, 6, 8, 10, 11, 12, 13, 14, 15]
for k in (6, 10):
    lines.append(col(k, full))
    lines.append(row(k, full))
lines.append(col(8, [5, 6, 8, 10, 11]))
lines.append(row(8, [5, 6, 8, 10, 11]))
# Each half's back railway row and front row.
for side in ("south", "east", "north", "west"):
    for lr in (1, 5):
        lines.append([name(*ROT[side](*north(lr, lc))) for lc in range(5)])
# Arcs join a half's side column with the neighbour's side row.
lines.append(col(6, [1, 2, 3, 4, 5]) + row(6, [5, 4, 3, 2, 1]))
lines.append(col(10, [1, 2, 3, 4, 5]) + row(6, [11, 12, 13, 14, 15]))
lines.append(col(6, [15, 14, 13, 12, 11]) + row(10, [5, 4, 3, 2, 1]))
lines.append(col(10, [15, 14, 13, 12, 11]) + row(10, [11, 12, 13, 14, 15]))

board = {
    "name": "siguo",
    "description": "四国军棋: the 129-point four-player board (docs/siguo.md)",
    "points": points,
    "edges": {"road": road, "railway": rail},
    "rail_lines": lines,
}
print(json.dumps(board, ensure_ascii=False, indent=1))
