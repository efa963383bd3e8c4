// Shared by the package's tests: a seeded PRNG and the check that a view holds no
// identity its player was not told.
import assert from "node:assert/strict";

/** A small seeded PRNG (mulberry32): the tests' own choices, reproducible. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Checks `game.view(player)` against what the player was told: every piece of another
 * army whose kind the view shows must have been revealed to (or flipped before) the
 * player — by (owner, kind), counted — and the view's event log is the player's.
 */
export function checkView(game, player) {
  const view = game.view(player);
  assert.equal(view.player, player);
  assert.deepEqual(view.events, game.events(player));
  const told = new Map();
  for (const e of view.events) {
    if (e.type === "revealed" || e.type === "flipped") {
      const key = `${e.owner}/${e.kind}`;
      told.set(key, (told.get(key) ?? 0) + 1);
    }
  }
  const shown = new Map();
  for (const p of view.pieces) {
    if (p.kind !== null && p.owner !== view.army) {
      const key = `${p.owner}/${p.kind}`;
      shown.set(key, (shown.get(key) ?? 0) + 1);
    }
  }
  for (const [key, n] of shown) {
    assert.ok((told.get(key) ?? 0) >= n, `${player}'s view shows ${n} × ${key} it was not told of (ply ${view.ply})`);
  }
  return view;
}
