#!/usr/bin/env python3
"""Generate core/data/boards/sanjun.json from docs/sanjun.md, section 1 (the
project's reconstruction of the 海陆空三军棋 board).

Columns a..i (x = 0..8), rows 1..14; South owns rows 1-5 and the piers c6 g6, North is
South rotated 180 degrees ((x, y) -> (8 - x, 15 - y)). Surface points are named like
"c6"; air positions carry a trailing "^" ("c6^"), so the two never mix. Run from the
repo root:
    python3 tools/gen_sanjun_board.py > core/data/boards/sanjun.json
"""
import json

COLS = "abcdefghi"


def name(x, y, air=False):
    return f"{COLS[x]}{y}" + ("^" if air else "")


def rot(x, y):
    return 8 - x, 15 - y


# South's land roles (x, y) -> role; North by rotation.
south = {}
for x in range(1, 8):
    for y in range(1, 6):
        south[(x, y)] = "post"
for p in [(1, 1), (7, 1), (4, 3)]:
    south[p] = "stronghold"
for p in [(2, 4), (3, 4), (4, 4), (5, 4), (6, 4), (2, 5), (6, 5)]:
    south[p] = "stronghold"          # railway strongholds
for p in [(1, 4), (7, 4)]:
    south[p] = "camp"
for p in [(3, 1), (4, 1), (5, 1)]:
    south[p] = "hq"
for p in [(1, 5), (3, 5), (4, 5), (5, 5), (7, 5)]:
    south[p] = "harbour_mouth"
south[(2, 6)] = "pier"
south[(6, 6)] = "pier"
ANCHORAGES = [(1, 6), (3, 6), (4, 6), (5, 6), (7, 6)]

land = {}
for (x, y), role in south.items():
    land[(x, y)] = ("south", role, y)
    land[rot(x, y)] = ("north", role, y)
sea = {}
for x in range(9):
    for y in range(6, 10):
        if (x, y) in land:
            continue
        if (x, y) in ANCHORAGES:
            sea[(x, y)] = ("south", "anchorage")
        elif rot(x, y) in ANCHORAGES:
            sea[(x, y)] = ("north", "anchorage")
        else:
            sea[(x, y)] = (None, "sea")

AIR_ROWS = [1, 3, 5, 7, 8, 10, 12, 14]
CORNERS = {(0, 1): "south", (8, 1): "south", (0, 14): "north", (8, 14): "north"}

points = []
for y in range(1, 15):
    for x in range(9):
        if (x, y) in land:
            side, role, _ = land[(x, y)]
            depth = y if side == "south" else 15 - y     # rows from the side's back row
            points.append({"name": name(x, y), "x": x, "y": y - 1, "role": role, "side": side, "depth": depth})
        elif (x, y) in sea:
            side, role = sea[(x, y)]
            p = {"name": name(x, y), "x": x, "y": y - 1, "role": role}
            if side:
                p["side"] = side
            points.append(p)
for y in AIR_ROWS:
    for x in range(9):
        p = {"name": name(x, y, True), "x": x, "y": y - 1,
             "role": "airport" if (x, y) in CORNERS else "air"}
        if (x, y) in CORNERS:
            p["side"] = CORNERS[(x, y)]
        points.append(p)

RING = ["c4", "d4", "e4", "f4", "g4", "g5", "g6", "g7", "g8", "g9", "g10", "g11", "f11",
        "e11", "d11", "c11", "c10", "c9", "c8", "c7", "c6", "c5"]
ring_edges = {frozenset((RING[i], RING[(i + 1) % len(RING)])) for i in range(len(RING))}


def e(a, b):
    return f"{name(*a)}-{name(*b)}"


road, rail, sea_edges, coast, air = [], [], [], [], []
# Road: orthogonal land pairs in rows 1-5 of one side (and 10-14), not on the ring.
for (x, y), (side, _, _) in land.items():
    for q in ((x + 1, y), (x, y + 1)):
        if q in land and land[q][0] == side and (y <= 5 and q[1] <= 5 or y >= 10 and q[1] >= 10):
            if frozenset((name(x, y), name(*q))) not in ring_edges:
                road.append(e((x, y), q))
for a, b in [((1, 4), (2, 3)), ((1, 4), (2, 5)), ((7, 4), (6, 3)), ((7, 4), (6, 5))]:
    road.append(e(a, b))
    road.append(e(rot(*a), rot(*b)))
rail = [f"{RING[i]}-{RING[(i + 1) % len(RING)]}" for i in range(len(RING))]
# Sea: orthogonal pairs of sea points (bridge sea points included).
for (x, y) in sea:
    for q in ((x + 1, y), (x, y + 1)):
        if q in sea:
            sea_edges.append(e((x, y), q))
# Coast links: mouth <-> anchorage in front; pier <-> both neighbouring anchorages and
# its bridge sea point.
for side_rot in (lambda x, y: (x, y), rot):
    for x in (1, 3, 4, 5, 7):
        coast.append(e(side_rot(x, 5), side_rot(x, 6)))
    for px in (2, 6):
        for q in ((px - 1, 6), (px + 1, 6), (px, 7)):
            coast.append(e(side_rot(px, 6), side_rot(*q)))
# Air: along each air line between consecutive lattice positions.
air_lines = []
for x in range(9):
    air_lines.append([name(x, y, True) for y in AIR_ROWS])
for y in AIR_ROWS:
    air_lines.append([name(x, y, True) for x in range(9)])
for line in air_lines:
    air += [f"{line[i]}-{line[i + 1]}" for i in range(len(line) - 1)]
# Railway runs stop at piers, so the ring's straight stretches are cut there.
rail_lines = [
    ["c6", "c5", "c4", "d4", "e4", "f4", "g4", "g5", "g6"],
    ["g6", "g7", "g8", "g9"],
    ["g9", "g10", "g11", "f11", "e11", "d11", "c11", "c10", "c9"],
    ["c9", "c8", "c7", "c6"],
]

board = {
    "name": "sanjun",
    "description": "海陆空三军棋: the project's reconstruction of the land-sea-air board "
                   "(docs/sanjun.md section 1); air positions end in ^",
    "points": points,
    "edges": {"road": road, "railway": rail, "sea": sea_edges, "coast": coast, "air": air},
    "rail_lines": rail_lines,
    "air_lines": air_lines,
}
print(json.dumps(board, ensure_ascii=False, indent=1))
