"""Shared setups for the junqi Python tests."""

from __future__ import annotations

import pytest

import junqi

# South's army, row by row (camps b3, d3, c4, b5, d5 start empty).
SOUTH = {
    "a1": "mine", "b1": "flag", "c1": "mine", "d1": "company_commander", "e1": "mine",
    "a2": "engineer", "b2": "platoon_leader", "c2": "platoon_leader",
    "d2": "platoon_leader", "e2": "company_commander",
    "a3": "company_commander", "c3": "battalion_commander", "e3": "battalion_commander",
    "a4": "regiment_commander", "b4": "regiment_commander",
    "d4": "brigade_commander", "e4": "brigade_commander",
    "a5": "bomb", "c5": "bomb", "e5": "division_commander",
    "a6": "division_commander", "b6": "army_commander", "c6": "commander",
    "d6": "engineer", "e6": "engineer",
}


def mirror(point: str) -> str:
    """South's point as North sees it: the board turned 180 degrees."""
    col, row = point[0], int(point[1:])
    return chr(ord("a") + ord("e") - ord(col)) + str(13 - row)


NORTH = {mirror(p): k for p, k in SOUTH.items()}


@pytest.fixture
def south() -> dict[str, str]:
    return dict(SOUTH)


@pytest.fixture
def north() -> dict[str, str]:
    return dict(NORTH)


@pytest.fixture
def game() -> junqi.Game:
    """A classic game with both fixed armies deployed; South to move."""
    g = junqi.Game("classic", seed=7)
    g.deploy("south", SOUTH)
    g.deploy("north", NORTH)
    return g
