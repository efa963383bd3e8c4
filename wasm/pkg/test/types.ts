// Type-checked by tests/wasm/run.sh (tsc --noEmit --strict): the README's example and
// the main calls against the package's generated declarations (never run).
import { Agent, Game, RuleSet, presetNames, replay } from "../index.js";

const names: string[] = presetNames();
const rules: RuleSet = RuleSet.preset(names[0]);
const game: Game = new Game("classic", 7);
game.deployRandom("south", 1);
game.deploy("north", rules.randomSetup("north", 2n));
const legal: { notation: string; id: number }[] = game.legalActions();
game.play(legal[0].notation);
const ids: Uint32Array = game.legalActionIds();
game.playId(ids[0]);
const agent = new Agent("greedy", 3);
agent.act(game, game.toAct ?? "south");
const svg: string = game.svg("south", '{"legend": false}');
const seed: bigint = game.seed;
const again: Game = replay(game.record());
const over: boolean = again.isOver;
const candidates: string[] = game.beliefs("south").candidates("a1");
const obs: Float32Array = game.observation("north");
export { svg, seed, over, candidates, obs };
