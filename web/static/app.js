// junqi-web page: the lobby (/) and the game page (/play/{id}?token=...).
// Plain JavaScript, no build step, no network resources but this server's API.
//
// The page holds no game logic: the board is the server's SVG of this seat's view, the
// points a piece may move to come from the server's `legal` list, and every click is
// sent to the server, which referees it. The SVG carries one invisible hit target per
// point (`<rect class="pt" data-point="c3">`) and marks pieces (`<g class="piece"
// data-at="c3" data-owner="south">`); the page adds CSS classes to those targets.
"use strict";

const $ = (sel) => document.querySelector(sel);

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

async function api(method, path, token, body) {
  const headers = {};
  if (token) headers["Authorization"] = "Bearer " + token;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: "no-store",
  });
  let data = null;
  try {
    data = await res.json();
  } catch (_) {
    data = null;
  }
  if (!res.ok) {
    const err = data && data.error ? data.error : { code: "http_" + res.status, message: res.statusText };
    const e = new Error(err.message);
    e.code = err.code;
    throw e;
  }
  return data;
}

// ---------------------------------------------------------------- lobby

// Seats of the presets as the server gives them (GET /api/presets: the core's sides in
// turn order); a custom rule set has its own "sides" or those of the preset it extends.
const PRESET_SIDES = {};
function sidesOf(rules) {
  if (typeof rules === "object" && rules) {
    if (Array.isArray(rules.sides)) return rules.sides;
    if (typeof rules.extends === "string") return sidesOf(rules.extends);
  }
  return PRESET_SIDES[rules] || PRESET_SIDES.classic || ["south", "north"];
}

function customRules() {
  const text = $("#custom-rules").value.trim();
  if (!text) return null;
  return JSON.parse(text);
}

function drawSeatChoices() {
  let rules = $("#preset").value;
  try {
    rules = customRules() || rules;
  } catch (_) {
    // Not JSON yet: keep the preset's seats; creating will report the error.
  }
  const box = $("#seat-choices");
  const before = {};
  for (const s of box.querySelectorAll("select")) before[s.dataset.side] = s.value;
  box.textContent = "";
  for (const side of sidesOf(rules)) {
    const label = el("label", { class: "seat-choice" }, side + " ");
    const select = el("select", { id: "seat-" + side, "data-side": side });
    select.append(el("option", { value: "human" }, "human"), el("option", { value: "random" }, "random player"),
      el("option", { value: "greedy" }, "bot: greedy (fast)"));
    for (let level = 1; level <= 5; level++) {
      select.append(el("option", { value: "bot-" + level }, "bot: search level " + level + (level === 3 ? " (about 1 s a move)" : "")));
    }
    select.value = before[side] || "human";
    label.append(select);
    box.append(label);
  }
}

async function lobby() {
  $("#lobby").hidden = false;
  document.title = "junqi · new game";
  try {
    const { presets, sides } = await api("GET", "/api/presets");
    Object.assign(PRESET_SIDES, sides || {});
    for (const p of presets) $("#preset").append(el("option", { value: p }, p));
    $("#preset").value = presets.includes("classic") ? "classic" : presets[0];
  } catch (e) {
    $("#lobby-error").textContent = "Could not load the presets: " + e.message;
  }
  drawSeatChoices();
  $("#preset").addEventListener("change", drawSeatChoices);
  $("#custom-rules").addEventListener("input", drawSeatChoices);
  $("#create-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    $("#lobby-error").textContent = "";
    let rules;
    try {
      rules = customRules() || $("#preset").value;
    } catch (e) {
      $("#lobby-error").textContent = "The custom rule set is not JSON: " + e.message;
      return;
    }
    const seats = {};
    for (const s of document.querySelectorAll("#seat-choices select")) seats[s.dataset.side] = seatRequest(s.value);
    const secs = $("#move-seconds").value.trim();
    const body = { rules, seats, move_seconds: secs ? Number(secs) : null };
    try {
      const game = await api("POST", "/api/games", null, body);
      showLinks(game);
    } catch (e) {
      $("#lobby-error").textContent = (e.code ? e.code + ": " : "") + e.message;
    }
  });
}

// A seat choice of the lobby as the API takes it: "bot-N" is the search at level N.
function seatRequest(value) {
  const m = /^bot-([1-5])$/.exec(value);
  return m ? { kind: "bot", level: Number(m[1]) } : value;
}

function showLinks(game) {
  $("#new-game-id").textContent = game.game + " (" + game.rules + ")";
  const list = $("#link-list");
  list.textContent = "";
  for (const [side, seat] of Object.entries(game.seats)) {
    const li = el("li", { class: "seat-link" });
    if (seat.url) {
      li.append(side + ": ");
      li.append(el("a", { id: "link-" + side, href: seat.url, target: "_blank", rel: "noreferrer" }, new URL(seat.url, location.href).href));
    } else {
      li.append(side + ": " + (seat.kind === "bot" ? "bot (" + seat.agent + ")" : seat.kind + " player"));
    }
    list.append(li);
  }
  const li = el("li", { class: "seat-link" }, "spectators: ");
  li.append(el("a", { id: "link-spectate", href: game.spectate, target: "_blank", rel: "noreferrer" }, new URL(game.spectate, location.href).href));
  list.append(li);
  $("#links").hidden = false;
}

// ---------------------------------------------------------------- game page

const G = {
  id: null,
  token: null,
  state: null,
  selected: null, // the point of the selected piece
  fetching: false,
  again: false,
};

function authQuery() {
  return G.token ? "?token=" + encodeURIComponent(G.token) : "";
}

function showError(e) {
  $("#message").textContent = e ? (e.code ? e.code + ": " : "") + e.message : "";
}

async function refresh() {
  if (G.fetching) {
    G.again = true;
    return;
  }
  G.fetching = true;
  try {
    do {
      G.again = false;
      const state = await api("GET", "/api/games/" + encodeURIComponent(G.id), G.token);
      render(state);
    } while (G.again);
  } catch (e) {
    showError(e);
  } finally {
    G.fetching = false;
  }
}

async function send(path, body) {
  showError(null);
  try {
    const state = await api("POST", "/api/games/" + encodeURIComponent(G.id) + path, G.token, body === undefined ? {} : body);
    if (state && state.version !== undefined && state.svg !== undefined) render(state);
    else await refresh();
  } catch (e) {
    showError(e);
    await refresh();
  }
}

function mySeat() {
  return G.state ? G.state.seat : null;
}

function render(state) {
  // Ignore an older state that arrives after a newer one.
  if (G.state && state.version < G.state.version) return;
  // A proposed setup may change the picture without a new version: compare both.
  const changed = !G.state || G.state.version !== state.version || G.state.svg !== state.svg;
  G.state = state;
  const seat = state.seat;
  document.title = "junqi · " + state.rules + " · " + (seat || "spectator");
  $("#rules-name").textContent = state.rules;
  $("#seat").textContent = seat ? "you play " + seat : "spectator";
  $("#phase").textContent = state.phase;

  // whose turn
  const turn = $("#turn");
  turn.dataset.toAct = state.to_act || "";
  if (state.phase === "over") turn.textContent = "Game over";
  else if (state.phase === "deploy") {
    const waiting = sidesInGame(state).filter((s) => !state.deployed.includes(s));
    turn.textContent = "Deployment: waiting for " + (waiting.join(", ") || "nobody");
  } else if (seat && isOut(state)) turn.textContent = "You are out of the game" + (state.to_act ? "; " + state.to_act + " to act" : "");
  else if (state.to_act && state.to_act === seat) turn.textContent = "Your turn (" + seat + ")";
  else if (state.to_act) turn.textContent = state.to_act + " to act";
  else turn.textContent = "";

  // result
  const result = $("#result");
  result.textContent = state.result ? state.result.text : "";
  result.dataset.over = state.phase === "over" ? "true" : "false";

  // draw offer
  const offer = state.draw_offer;
  $("#draw-offer").textContent = offer ? offer + " offers a draw" : "";

  // the board
  if (changed || !$("#board svg")) {
    // The server's picture of this seat's view, drawn by the core (text escaped there).
    $("#board").innerHTML = state.svg || "";
  }
  const board = $("#board");
  board.dataset.version = String(state.version);
  board.dataset.phase = state.phase;
  board.dataset.seat = seat || "";
  if (changed) G.selected = null;
  markBoard();

  // deployment
  const deploying = state.phase === "deploy" && !!seat && !state.deployed.includes(seat);
  $("#deploy").hidden = !deploying;
  $("#deploy-status").textContent =
    state.phase === "deploy" && seat && state.deployed.includes(seat)
      ? "Deployed; waiting for the others."
      : state.pending_setup
        ? "Proposed, not yet confirmed."
        : "No setup proposed yet (Confirm deploys a random one).";
  if (state.phase === "deploy" && seat && state.deployed.includes(seat)) $("#deploy").hidden = true;

  // play controls
  const playing = inPlay(state) && !!seat && !isOut(state);
  $("#play-controls").hidden = !playing;
  const theyOffer = offer && offer !== seat;
  $("#accept-draw").hidden = !theyOffer;
  $("#decline-draw").hidden = !theyOffer;
  $("#offer-draw").hidden = !!offer;
  const others = $("#other-actions");
  others.textContent = "";
  for (const a of state.legal || []) {
    if (a.from) continue; // moves and flips are clicked on the board
    const b = el("button", { type: "button", class: "other-action", "data-id": String(a.id) }, a.notation);
    b.addEventListener("click", () => send("/action", { id: a.id }));
    others.append(b);
  }

  // the log, in words
  const log = $("#log");
  log.textContent = "";
  for (const e of state.events || []) log.append(el("li", { "data-ply": String(e.ply) }, e.text));
  log.scrollTop = log.scrollHeight;

  // downloads
  const base = "/api/games/" + encodeURIComponent(G.id) + "/record";
  const own = $("#download-own");
  own.hidden = !seat;
  if (seat) {
    own.href = base + authQuery();
    own.setAttribute("download", G.id + "-" + seat + ".json");
  }
  const full = $("#download-full");
  full.hidden = state.phase !== "over";
  if (state.phase === "over") {
    full.href = base + "?full=1";
    full.setAttribute("download", G.id + ".json");
  }
  tickClock();
}

// Whether this page's seat is out of the game (the core says who is, in the view).
function isOut(state) {
  return !!state.seat && !!state.view && (state.view.eliminated || []).includes(state.seat);
}

// Moves or reactions are being played (the core's phases "move" and "reaction").
function inPlay(state) {
  return state.phase === "move" || state.phase === "reaction";
}

function sidesInGame(state) {
  return Object.keys(state.seats || {});
}

// The legal entries by start point, for the seat to act.
function legalFrom(point) {
  return (G.state.legal || []).filter((a) => a.from === point);
}

function pt(point) {
  return $("#board").querySelector('.pt[data-point="' + CSS.escape(point) + '"]');
}

function ownPieceAt(point) {
  const g = $("#board").querySelector('.piece[data-at="' + CSS.escape(point) + '"]');
  return !!g && g.classList.contains("own") && g.dataset.owner === (G.state.view && G.state.view.army ? G.state.view.army : mySeat());
}

// Marks the hit targets: movable pieces, the selection, its targets.
function markBoard() {
  const s = G.state;
  for (const r of document.querySelectorAll("#board .pt")) r.classList.remove("from", "selected", "target", "flip");
  if (!s) return;
  if (inPlay(s)) {
    for (const a of s.legal || []) {
      if (!a.from) continue;
      const r = pt(a.from);
      if (r) r.classList.add(a.to ? "from" : "flip");
    }
    if (G.selected) {
      const r = pt(G.selected);
      if (r) r.classList.add("selected");
      for (const a of legalFrom(G.selected)) {
        if (!a.to) continue;
        const t = pt(a.to);
        if (t) t.classList.add("target");
      }
    }
  } else if (s.phase === "deploy" && G.selected) {
    const r = pt(G.selected);
    if (r) r.classList.add("selected");
  }
}

function onBoardClick(ev) {
  const target = ev.target.closest("[data-point]");
  if (!target || !G.state || !mySeat()) return;
  const point = target.dataset.point;
  const s = G.state;
  if (s.phase === "deploy") {
    if (s.deployed.includes(mySeat()) || !s.pending_setup) return;
    const empty = !$("#board").querySelector('.piece[data-at="' + CSS.escape(point) + '"]');
    if (G.selected !== null && G.selected !== point && empty) {
      // A piece may also move to an empty point of the seat's own ground.
      const a = G.selected;
      G.selected = null;
      send("/setup", { swap: [a, point] });
    } else if (!ownPieceAt(point)) {
      G.selected = null;
    } else if (G.selected === null) {
      G.selected = point;
    } else if (G.selected === point) {
      G.selected = null;
    } else {
      const a = G.selected;
      G.selected = null;
      send("/setup", { swap: [a, point] });
    }
    markBoard();
    return;
  }
  if (!inPlay(s)) return;
  if (G.selected) {
    const move = legalFrom(G.selected).find((a) => a.to === point);
    if (move) {
      G.selected = null;
      markBoard();
      send("/action", { id: move.id });
      return;
    }
  }
  const from = legalFrom(point);
  const flip = from.find((a) => !a.to);
  if (flip) {
    G.selected = null;
    markBoard();
    send("/action", { id: flip.id });
    return;
  }
  G.selected = from.length && G.selected !== point ? point : null;
  markBoard();
}

function tickClock() {
  const s = G.state;
  const c = $("#clock");
  if (!s || !s.clock) {
    c.textContent = "";
    return;
  }
  const parts = [];
  if (s.clock.deadline_ms && inPlay(s)) {
    const left = Math.max(0, Math.ceil((s.clock.deadline_ms - Date.now()) / 1000));
    parts.push((s.to_act === mySeat() ? "You have " : (s.to_act || "") + " has ") + left + " s");
    c.dataset.left = String(left);
  } else {
    parts.push(s.clock.move_seconds + " s per move");
  }
  const t = s.clock.timeouts || {};
  const missed = Object.entries(t).filter(([, n]) => n > 0).map(([side, n]) => side + " " + n);
  if (missed.length) parts.push("time-outs: " + missed.join(", "));
  c.textContent = parts.join(" · ");
}

function listen() {
  if (!window.EventSource) {
    setInterval(refresh, 2000);
    return;
  }
  const es = new EventSource("/api/games/" + encodeURIComponent(G.id) + "/events" + authQuery());
  es.addEventListener("update", () => refresh());
  // After a dropped connection the browser reconnects by itself; fetch what was missed.
  es.addEventListener("open", () => refresh());
  // A stream the server refused (too many open: 429/503 too_many_streams) is not retried
  // by the browser: poll instead.
  es.addEventListener("error", () => {
    if (es.readyState === EventSource.CLOSED && !G.polling) {
      G.polling = setInterval(refresh, 2000);
    }
  });
}

function game(id) {
  G.id = id;
  const params = new URLSearchParams(location.search);
  const hash = new URLSearchParams(location.hash.replace(/^#/, ""));
  G.token = params.get("token") || hash.get("token") || null;
  $("#game").hidden = false;
  $("#board").addEventListener("click", onBoardClick);
  $("#random-setup").addEventListener("click", () => {
    G.selected = null;
    send("/setup", { random: true });
  });
  $("#paste-setup").addEventListener("click", () => {
    const text = $("#setup-text").value.trim();
    let setup = text;
    try {
      setup = JSON.parse(text);
    } catch (_) {
      // not JSON: the setup text as the core reads it
    }
    G.selected = null;
    send("/setup", { setup });
  });
  $("#confirm").addEventListener("click", () => {
    G.selected = null;
    send("/confirm");
  });
  $("#resign").addEventListener("click", () => {
    if (confirm("Resign this game?")) send("/resign");
  });
  $("#offer-draw").addEventListener("click", () => send("/draw", { offer: true }));
  $("#accept-draw").addEventListener("click", () => send("/draw", { accept: true }));
  $("#decline-draw").addEventListener("click", () => send("/draw", { decline: true }));
  setInterval(tickClock, 250);
  refresh();
  listen();
}

const m = location.pathname.match(/^\/play\/([^/]+)\/?$/);
if (m) game(decodeURIComponent(m[1]));
else lobby();
