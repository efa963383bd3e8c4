// The package through JavaScript: a game of every preset played to the end, errors,
// views without unseen kinds, and records for the native replay (tests/wasm/run.sh).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { Agent, Beliefs, Game, RuleSet, presetNames, presetJson, randomSeed, replay } from "../index.js";
import { checkView, prng } from "./helpers.mjs";

// Where records are written for the native replay (tests/wasm/run.sh); unset: not written.
const RECORDS = process.env.JUNQI_JS_RECORDS;
// Plies of random play before the side to act resigns: the games stay short.
const CAP = 160;

/** Plays `game` to the end: random legal actions by notation and by id, the views of
 * every seat checked along the way, a resignation of the side to act after CAP plies.
 * Returns the plies played and the sides that resigned. */
function playOut(game, seed) {
  const rand = prng(seed);
  const sides = game.rules.sides;
  const resigned = [];
  let plies = 0;
  while (!game.isOver) {
    if (plies === CAP) {
      // In 四国 a seat that resigns leaves its partner playing: resign until the end.
      while (!game.isOver) {
        resigned.push(game.toAct);
        game.resign(game.toAct);
      }
      break;
    }
    const legal = game.legalActions();
    assert.ok(legal.length > 0, `${game.rules.name}: someone is to act and has actions`);
    assert.deepEqual(legal.map((a) => a.id).sort((x, y) => x - y), [...game.legalActionIds()]);
    const a = legal[Math.floor(rand() * legal.length)];
    const report = plies % 2 ? game.play(a.notation) : game.playId(a.id);
    assert.ok(Array.isArray(report.public));
    plies += 1;
    if (plies % 20 === 0) for (const s of sides) checkView(game, s);
  }
  for (const s of sides) checkView(game, s);
  return { plies, resigned };
}

// How a game of random play and resignations can end (core/src/position/outcome.rs;
// agreement, timeouts and escape need calls playOut never makes), and which are draws.
const PLAY_ENDS = ["flag_captured", "no_legal_move", "no_capture_limit", "resignation", "no_movable_pieces", "commander_captured", "mutual_elimination"];
const DRAWS = ["no_capture_limit", "mutual_elimination"];

/** The result of a game playOut finished is one of PLAY_ENDS, with the winners it names:
 * nobody for a draw, else a whole team; after resignations, a resignation that the last
 * side to resign lost (四国: a seat of the winning team may have resigned before). */
function checkResult(game, resigned) {
  const { winners, reason } = game.result;
  const name = game.rules.name;
  assert.ok(PLAY_ENDS.includes(reason), `${name}: ${reason} is no end of play`);
  assert.equal(reason === "resignation", resigned.length > 0, `${name}: ${reason} after resignations of ${resigned}`);
  if (DRAWS.includes(reason)) {
    assert.deepEqual(winners, [], `${name}: a draw (${reason}) has no winners`);
  } else {
    assert.ok(winners.length > 0, `${name}: ${reason} names no winner`);
    assert.deepEqual([...winners].sort(), [...game.rules.teamOf(winners[0])].sort(), `${name}: the winners are a team`);
    const last = resigned.at(-1);
    if (last) assert.ok(!winners.includes(last), `${name}: ${last} resigned last and won`);
  }
}

/** The state a native replay must reach: the line core/examples/replay.rs prints. */
function expected(game) {
  const views = {};
  for (const s of [...game.rules.sides].sort()) views[s] = game.view(s);
  return JSON.stringify({ public: game.publicView(), record: game.record(), result: game.result ?? null, views });
}

for (const name of presetNames()) {
  test(`${name}: a whole game through JavaScript, replayed`, () => {
    const game = new Game(name, 31);
    assert.equal(game.rules.name, name);
    assert.equal(game.seed, 31n);
    if (!game.rules.deals) {
      for (const [i, s] of game.rules.sides.entries()) game.deployRandom(s, 100 + i);
    }
    assert.notEqual(game.phase, "deploy");
    const { resigned } = playOut(game, 7);
    assert.equal(game.phase, "over");
    checkResult(game, resigned);
    assert.equal(typeof game.resultText, "string");
    // The record replays, in this package, to the same state.
    const again = replay(game.record());
    assert.equal(again.record(), game.record());
    assert.equal(expected(again), expected(game));
    if (RECORDS) {
      mkdirSync(RECORDS, { recursive: true });
      writeFileSync(`${RECORDS}/${name}.record.json`, game.record());
      writeFileSync(`${RECORDS}/${name}.expected.json`, expected(game) + "\n");
    }
  });
}

test("agents play a seat each, from their own information", () => {
  const game = new Game("classic", 5);
  const seats = { south: new Agent("greedy", 1), north: new Agent("search:iters=200", 2) };
  assert.equal(seats.north.name, "search:iters=200");
  for (const s of game.rules.sides) assert.ok(seats[s].act(game, s), "deploys");
  let plies = 0;
  while (!game.isOver && plies < 20) {
    const s = game.toAct;
    const other = s === "south" ? "north" : "south";
    assert.equal(seats[other].act(game, other), undefined, "nothing to do off turn");
    const choice = seats[s].choose(game, s);
    assert.ok(game.isLegal(choice.notation));
    assert.ok(seats[s].act(game, s));
    plies += 1;
  }
  const random = new Agent("random", 3);
  while (!game.isOver) random.act(game, game.toAct);
  assert.equal(game.phase, "over");
});

/** Plays `plies` random legal actions (fewer if the game ends); returns their notations. */
function playRandom(game, seed, plies) {
  const rand = prng(seed);
  const actions = [];
  while (actions.length < plies && !game.isOver) {
    const legal = game.legalActions();
    const a = legal[Math.floor(rand() * legal.length)].notation;
    game.play(a);
    actions.push(a);
  }
  return actions;
}

/** Where `side`'s pieces stand and what they are (its own view tells it). */
function ownKinds(game, side) {
  return new Map(game.view(side).pieces.filter((p) => p.owner === side).map((p) => [p.point, p.kind]));
}

/**
 * Pairs of classic games after 30 plies of random play, with combats, that differ only
 * in two North pieces South cannot tell apart: they swapped kinds in North's setup,
 * both still stand on the board unrevealed with the same candidates in South's beliefs,
 * and South's view (its event log included) is the same in both games.
 */
function midGameSwaps() {
  const rules = RuleSet.preset("classic");
  const found = [];
  for (const seed of [1, 2, 3]) {
    const south = rules.randomSetup("south", seed);
    const north = rules.randomSetup("north", 100 + seed);
    const a = new Game("classic", seed);
    a.deploy("south", south);
    a.deploy("north", north);
    const actions = playRandom(a, seed, 30);
    assert.equal(a.toAct, "south");
    const combats = a.events("south").filter((e) => e.type === "attacked").length;
    assert.ok(combats >= 2, `seed ${seed}: only ${combats} combats`);
    const points = Object.keys(north).sort();
    const pairs = points.flatMap((x, i) => points.slice(i + 1).map((y) => [x, y]));
    const rand = prng(seed);
    for (let i = pairs.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [pairs[i], pairs[j]] = [pairs[j], pairs[i]];
    }
    let swaps = 0;
    for (const [x, y] of pairs) {
      if (swaps === 3) break;
      if (north[x] === north[y]) continue;
      const b = new Game("classic", seed);
      b.deploy("south", south);
      try {
        b.deploy("north", { ...north, [x]: north[y], [y]: north[x] });
        for (const action of actions) b.play(action);
      } catch (e) {
        if (!(e instanceof Error && e.kind)) throw e; // only the package's refusals
        continue; // not a legal setup, or the game went differently: seen
      }
      if (b.toAct !== a.toAct || !isDeepStrictEqual(b.view("south"), a.view("south"))) continue;
      const [ka, kb] = [ownKinds(a, "north"), ownKinds(b, "north")];
      const differ = [...ka.keys()].filter((p) => ka.get(p) !== kb.get(p)).sort();
      if (differ.length !== 2) continue; // a swapped piece is off the board
      const beliefs = a.beliefs("south");
      if (!isDeepStrictEqual(beliefs.candidates(differ[0]), beliefs.candidates(differ[1]))) continue;
      found.push([a, b, differ]);
      swaps++;
    }
  }
  return found;
}

test("an agent's choice and a seat's view do not depend on the other army", () => {
  const setup = RuleSet.preset("classic").randomSetup("south", 8);
  const games = [1, 2].map((northSeed) => {
    const g = new Game("classic", 5);
    g.deploy("south", setup);
    g.deployRandom("north", northSeed);
    return g;
  });
  assert.notEqual(games[0].record(), games[1].record(), "the north armies differ");
  for (const spec of ["random", "greedy", "search:iters=100"]) {
    const [a, b] = games.map((g) => new Agent(spec, 7).choose(g, "south"));
    assert.ok(a !== undefined, spec);
    assert.deepEqual(a, b, spec);
  }
  assert.deepEqual(games[0].view("south"), games[1].view("south"));
  assert.deepEqual([...games[0].observation("south")], [...games[1].observation("south")]);
  // Mid-game: after combats, two North pieces South cannot tell apart change places.
  const swaps = midGameSwaps();
  assert.ok(swaps.length >= 6, `only ${swaps.length} swaps South cannot see`);
  assert.ok(swaps.some(([a, , points]) => points.some((p) => a.beliefs("south").hasMoved(p))), "a swapped piece has moved");
  for (const [a, b, points] of swaps) {
    const [ba, bb] = [a.beliefs("south"), b.beliefs("south")];
    for (const p of points) {
      const seen = a.view("south").pieces.find((q) => q.point === p);
      assert.equal(seen.owner, "north");
      assert.equal(seen.kind, null, `${p} is unrevealed`);
      assert.ok(ba.candidates(p).length > 1);
      assert.deepEqual(ba.candidates(p), bb.candidates(p));
    }
    for (const spec of ["random", "greedy", "search:iters=100"]) {
      for (const seed of [3, 4]) {
        const [x, y] = [a, b].map((g) => new Agent(spec, seed).choose(g, "south"));
        assert.ok(x !== undefined, spec);
        assert.deepEqual(x, y, `${spec} chooses ${x.notation} or ${y.notation} at ply ${a.ply} (${points} swapped)`);
      }
    }
    assert.deepEqual([...a.observation("south")], [...b.observation("south")]);
  }
});

/** A check that a call throws an Error of one kind (docs/errors.md) whose message matches. */
const refused = (kind, pattern = /./) => (e) =>
  e instanceof Error && e.kind === kind && pattern.test(e.message);

test("errors are Errors with the core's messages and kinds, and change nothing", () => {
  assert.throws(() => new Game("chess"), refused("unknown_name", /chess/));
  assert.throws(() => RuleSet.fromJson("{"), refused("invalid_rules"));
  assert.throws(() => new Game("classic", -1), refused("out_of_range", /seed/));
  const game = new Game("classic", 1);
  assert.throws(() => game.play("a1-a2"), refused("wrong_phase", /deploy/));
  assert.throws(() => game.deploy("south", { a1: "flag" }), refused("invalid_setup"));
  assert.throws(() => game.deploy("purple", {}), refused("unknown_name", /unknown side "purple"/));
  assert.throws(() => game.view("east"), refused("side_not_in_game", /east/), "a side not in the game");
  assert.deepEqual(game.deployed, []);
  game.deployRandom("south", 1);
  game.deployRandom("north", 2);
  assert.deepEqual(game.eliminated, []);
  assert.equal(game.timeouts("south"), 0);
  const before = game.record();
  assert.throws(() => game.play("a1-k9"), refused("unknown_name"));
  assert.throws(() => game.play("not a move"), refused("invalid_notation"));
  assert.throws(() => game.play("a1-a12"), refused("illegal_action"));
  assert.throws(() => game.playId(game.rules.actionSpace + 5), refused("out_of_range"));
  assert.throws(() => game.beliefs("north").candidates("z99"), refused("unknown_name"));
  assert.equal(game.record(), before, "a refused call changes nothing");
  assert.throws(() => replay("{}"), refused("invalid_record", /record/));
  assert.throws(() => new Agent("search:9", 1), refused("out_of_range", /level/));
  assert.throws(() => new Agent("pimc:6", 1), refused("out_of_range", /level/));
  assert.equal(new Agent("pimc:iters=20", 1).name, "pimc:iters=20");
  assert.equal(new Agent("ismcts:iters=20", 1).name, "search:iters=20");
  assert.throws(() => new Agent("search:ms=100", 1), refused("out_of_range", /clock/));
  assert.throws(() => new Agent("search:2,threads=2", 1), refused("out_of_range", /thread/));
});

test("seeds: numbers, BigInts, and from crypto.getRandomValues (getrandom's wasm_js)", () => {
  assert.equal(new Game("classic", 2n ** 64n - 1n).seed, 2n ** 64n - 1n);
  assert.equal(new Game("classic", Number.MAX_SAFE_INTEGER).seed, BigInt(Number.MAX_SAFE_INTEGER));
  assert.throws(() => new Game("classic", 2n ** 64n), /BigInt seed/);
  assert.throws(() => new Game("classic", 1.5), /whole number/);
  const seeds = new Set([new Game().seed, new Game("classic").seed, randomSeed(), randomSeed()]);
  assert.equal(seeds.size, 4, "seeds drawn from the platform differ");
  assert.equal(new Game().rules.name, "classic");
});

test("rule sets, beliefs, observations and pictures", () => {
  const rules = RuleSet.preset("classic");
  assert.equal(RuleSet.fromJson(presetJson("classic")).toJson(), rules.toJson());
  assert.equal(rules.armySize, 25);
  assert.equal(rules.actionAt(rules.actionId("a2-a6")), "a2-a6");
  assert.equal(Object.values(rules.army()).reduce((a, b) => a + b, 0), 25);
  assert.equal(rules.resolve("engineer", "mine"), "win");
  assert.equal(rules.resolve("bomb", "commander"), "both");
  assert.equal(rules.resolve("engineer", "commander"), "lose");
  assert.throws(() => rules.resolve("dragon", "mine"), /unknown piece kind "dragon"/);
  const game = Game.withRules(rules, 9);
  game.deploy("south", rules.randomSetup("south", 4));
  game.deployRandom("north", 5);
  const b = game.beliefs("south");
  assert.ok(b instanceof Beliefs && b.isConsistent);
  assert.equal(b.player, "south");
  const enemy = game.view("south").pieces.find((p) => p.owner === "north");
  assert.equal(enemy.kind, null, "an enemy piece's kind is unseen");
  assert.ok(b.candidates(enemy.point).length > 1);
  const own = game.view("south").pieces.find((p) => p.owner === "south");
  assert.deepEqual(b.candidates(own.point), [own.kind]);
  // Modelled beliefs: a probability per candidate, summing to 1; the plain model and
  // the shipped one differ on the enemy's back row (the engine's deployments show).
  for (const model of [undefined, "shipped", "plain"]) {
    const p = b.probabilities(enemy.point, model);
    assert.deepEqual(p.map(([s, k]) => [s, k]), b.candidateIdentities(enemy.point));
    assert.ok(Math.abs(p.reduce((a, [, , q]) => a + q, 0) - 1) < 1e-9);
  }
  const mine = (m) => b.probabilities("c12", m).find(([, k]) => k === "mine")?.[2] ?? 0;
  assert.ok(mine("shipped") > 2 * mine("plain"), `${mine("shipped")} vs ${mine("plain")}`);
  assert.deepEqual(b.probabilities(own.point), [["south", own.kind, 1]]);
  assert.throws(() => b.probabilities(own.point, "psychic"), refused("unknown_name"));
  assert.deepEqual(b.evidence(own.point).turns, 0);
  assert.equal(b.evidence("c4"), undefined); // a camp: empty at the start
  const spec = rules.observationSpec();
  const obs = game.observation("south");
  assert.ok(obs instanceof Float32Array);
  assert.equal(obs.length, spec.channels.length * spec.points);
  // With a model, its modelled planes after the others: on every point they sum to 1 on
  // an opponent's piece, 0 elsewhere; the shipped model is not the plain beliefs.
  const mspec = rules.observationSpec(true);
  assert.deepEqual(mspec.channels.slice(0, spec.channels.length), spec.channels);
  assert.equal(mspec.channels[spec.channels.length], "modelled:flag");
  const mobs = game.observation("south", "shipped");
  assert.equal(mobs.length, mspec.channels.length * mspec.points);
  assert.deepEqual([...mobs.slice(0, obs.length)], [...obs]);
  const [first, n] = [spec.channels.length, spec.points];
  const enemyPlane = spec.channels.indexOf("enemy");
  for (let i = 0; i < n; i++) {
    let total = 0;
    for (let k = first; k < mspec.channels.length; k++) total += mobs[k * n + i];
    assert.ok(Math.abs(total - obs[enemyPlane * n + i]) < 1e-4, `point ${i}: ${total}`);
  }
  assert.notDeepEqual([...game.observation("south", "plain").slice(obs.length)], [...mobs.slice(obs.length)]);
  assert.throws(() => game.observation("south", "psychic"), refused("unknown_name"));
  const svg = game.svg("south", '{"legend": false}');
  assert.match(svg, /^<svg/);
  assert.throws(() => game.svg("south", '{"scale": -1}'), /scale/);
  assert.match(rules.boardSvg("north"), /<svg/);
  // The player record holds the player's own setup, never the other army's.
  const pr = JSON.parse(game.playerRecord("south"));
  const deploys = JSON.parse(game.record()).actions.filter((e) => e.deploy);
  assert.equal(pr.player, "south");
  assert.deepEqual(pr.setup, deploys.find((e) => e.deploy === "south").setup);
  assert.ok(!JSON.stringify(pr).includes(JSON.stringify(deploys.find((e) => e.deploy === "north").setup)));
  // A determinized game agrees with everything south saw.
  const d = game.determinize("south", 3);
  assert.deepEqual(d.view("south").pieces, game.view("south").pieces);
});

test("the seeded start: Game.randomStart is the golden start of every preset and seed", () => {
  const golden = readFileSync(new URL("../../../tests/golden/random-start.txt", import.meta.url), "utf8");
  let checked = 0;
  for (const line of golden.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const [name, seed, text] = line.split("\t");
    const game = Game.randomStart(name, BigInt(seed));
    assert.equal(game.positionString(), text, `${name} ${seed}`);
    assert.equal(game.seed, BigInt(seed));
    // Deploying every side without a seed of its own is the same start.
    const byHand = new Game(name, BigInt(seed));
    for (const side of [...byHand.rules.sides].reverse()) {
      if (byHand.phase === "deploy" && !byHand.deployed.includes(side)) byHand.deployRandom(side);
    }
    assert.equal(byHand.positionString(), text, `${name} ${seed} deployed by hand`);
    checked++;
  }
  assert.ok(checked >= 8);
});
