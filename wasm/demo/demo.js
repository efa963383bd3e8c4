// The offline page: a whole game against the engine's own players, all in the page.
// The engine (../pkg, WebAssembly) referees; the board is the core's SVG of the human
// seat's view (junqi::render), so the page shows exactly what that seat may know.
// Click one of your pieces, then one of its highlighted targets (a face-down tile in
// 翻棋: click it to flip). URL parameters: ?rules=classic&opponent=greedy&seed=7&auto=1.
import { Agent, Game, presetNames } from "../pkg/index.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const state = { game: null, seat: "", agents: {}, auto: null, selected: null, busy: false, timer: 0 };

for (const name of presetNames()) {
  const o = document.createElement("option");
  o.value = o.textContent = name;
  $("rules").append(o);
}
$("rules").value = params.get("rules") ?? "classic";
if (params.get("opponent")) $("opponent").value = params.get("opponent");
$("auto").checked = params.get("auto") === "1";

function log(text) {
  const d = document.createElement("div");
  d.textContent = text;
  $("log").prepend(d);
}

/** What the human seat is told of a report: the public events and its own. */
function told(report) {
  const own = report.private[state.seat] ?? [];
  for (const e of [...report.public, ...own]) {
    if (e.type === "moved" || e.type === "attacked" || e.type === "struck") {
      log(`${e.side}: ${e.from}-${e.to}${e.outcome ? ` (${e.outcome})` : ""}`);
    } else if (e.type === "revealed") {
      log(`revealed: ${e.owner} ${e.kind} on ${e.point}`);
    } else if (e.type === "flipped") {
      log(`${e.side} flips ${e.point}: ${e.owner} ${e.kind}`);
    } else if (e.type !== "deployed") {
      log(e.type.replace(/_/g, " ") + (e.side ? `: ${e.side}` : ""));
    }
  }
}

function newGame() {
  clearTimeout(state.timer);
  const seed = params.has("seed") ? Number(params.get("seed")) : undefined;
  const game = new Game($("rules").value, seed);
  state.game = game;
  state.seat = game.rules.sides[0];
  state.agents = {};
  game.rules.sides.forEach((s, i) => {
    if (s !== state.seat) state.agents[s] = new Agent($("opponent").value, (seed ?? Date.now()) + i + 1);
  });
  state.auto = new Agent("random", (seed ?? Date.now()) + 99);
  state.selected = null;
  $("log").textContent = "";
  $("message").textContent = "";
  if (!game.rules.deals) {
    game.deployRandom(state.seat, seed === undefined ? undefined : seed + 50);
    for (const [s, agent] of Object.entries(state.agents)) agent.act(game, s);
  }
  log(`new ${game.rules.name} game: you are ${state.seat}`);
  draw();
  proceed();
}

/** Lets the engine's players act until it is the human seat's turn (or the end). */
function proceed() {
  const game = state.game;
  if (game.isOver) return draw();
  const s = game.toAct;
  if (s === state.seat && !$("auto").checked) return draw();
  state.timer = setTimeout(() => {
    if (game !== state.game || game.isOver) return;
    try {
      const agent = s === state.seat ? state.auto : state.agents[s];
      const report = agent.act(game, s);
      if (report) told(report);
    } catch (e) {
      $("message").textContent = e.message;
      return;
    }
    draw();
    proceed();
  }, $("auto").checked ? 0 : 150);
}

function humanPlay(notation) {
  try {
    told(state.game.play(notation));
  } catch (e) {
    $("message").textContent = e.message; // the core's refusal; nothing changed
  }
  state.selected = null;
  draw();
  proceed();
}

function draw() {
  const game = state.game;
  const board = $("board");
  board.innerHTML = game.svg(state.seat, '{"legend": false}');
  board.dataset.phase = game.phase;
  board.dataset.ply = String(game.ply);
  board.dataset.seat = state.seat;
  const toAct = game.toAct ?? "";
  $("turn").dataset.toAct = toAct;
  $("turn").textContent = game.isOver ? "game over" : toAct === state.seat ? "your move" : `${toAct} to act`;
  $("result").textContent = game.isOver ? game.resultText : "";
  $("result").dataset.over = String(game.isOver);
  if (game.isOver || toAct !== state.seat) return;
  const legal = game.legalActions().map((a) => a.notation);
  const mark = (point, cls) => board.querySelector(`.pt[data-point="${CSS.escape(point)}"]`)?.classList.add(cls);
  for (const n of legal) {
    if (n.startsWith("flip ")) mark(n.slice(5), "flip");
    else mark(n.split("-")[0], "from");
  }
  if (state.selected) {
    mark(state.selected, "selected");
    for (const n of legal) if (n.startsWith(state.selected + "-")) mark(n.split("-")[1], "target");
  }
}

$("board").addEventListener("click", (ev) => {
  const pt = ev.target.closest(".pt");
  const game = state.game;
  if (!pt || !game || game.isOver || game.toAct !== state.seat) return;
  const p = pt.dataset.point;
  const legal = game.legalActions().map((a) => a.notation);
  if (state.selected && legal.includes(`${state.selected}-${p}`)) return humanPlay(`${state.selected}-${p}`);
  if (legal.includes(`flip ${p}`)) return humanPlay(`flip ${p}`);
  state.selected = legal.some((n) => n.startsWith(p + "-")) ? p : null;
  draw();
});
$("new").addEventListener("click", newGame);
$("resign").addEventListener("click", () => {
  if (state.game && !state.game.isOver) {
    told(state.game.resign(state.seat));
    draw();
  }
});
$("auto").addEventListener("change", () => state.game && proceed());

newGame();
document.body.dataset.ready = "true";
