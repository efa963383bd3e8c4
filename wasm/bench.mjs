// Random play in WebAssembly: `node wasm/bench.mjs [RULES] [SECONDS]` (after
// `bash tests/wasm/run.sh --build`; `bash tests/wasm/run.sh --bench` runs it beside the
// native `cargo bench -p junqi --bench throughput`). The loop is the native bench's —
// whole random games from random starts, each ply generating the legal actions,
// picking one uniformly and applying it — run inside the .wasm by randomPlies();
// the time includes each game's random start, which the native figure leaves out.
import { Game, randomPlies } from "./pkg/index.js";

const rules = process.argv[2] ?? "classic";
const seconds = Number(process.argv[3] ?? 3);
randomPlies(rules, 20, 1); // warm-up: compile and tier up
let plies = 0;
let games = 0;
const start = performance.now();
while (performance.now() - start < seconds * 1000) {
  plies += randomPlies(rules, 10, games + 2);
  games += 10;
}
const elapsed = (performance.now() - start) / 1000;
console.log(
  `wasm (Node ${process.versions.node}) random plies  ${Math.round(plies / elapsed)} plies/s   ` +
    `(${plies} plies in ${games} games, ${(plies / games).toFixed(0)} plies/game)`,
);
const native = Number(process.env.JUNQI_NATIVE_PLIES);
const nativeGames = Number(process.env.JUNQI_NATIVE_GAMES);
console.log(`wasm whole random games (with random starts)  ${(games / elapsed).toFixed(1)} games/s`);
if (native > 0) {
  console.log(`wasm / native, plies/s: ${((100 * plies) / elapsed / native).toFixed(0)} % (the wasm time includes the starts)`);
}
if (nativeGames > 0) console.log(`wasm / native, games/s: ${((100 * games) / elapsed / nativeGames).toFixed(0)} %`);
// The referee: Game.playRandom plays checked actions and keeps the record.
let apiPlies = 0;
const t = performance.now();
for (let i = 0; performance.now() - t < 1000; i++) {
  const g = new Game(rules, i);
  apiPlies += g.playRandom(100000, i);
}
const apiElapsed = (performance.now() - t) / 1000;
console.log(`wasm Game.playRandom (referee, records)  ${Math.round(apiPlies / apiElapsed)} plies/s`);
