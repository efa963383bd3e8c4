// junqi-web page: the lobby (/) and the game page (/play/{id}?token=...).
// The lobby: a name kept in this browser, play the computer, quick pairing, the open
// games and the games to watch, a game of one's own, the ratings. The game page: the
// seat's board, clocks, log and controls; after the end the rating changes and the
// rematch.
// Plain JavaScript, no build step, no network resources but this server's API.
//
// The page holds no game logic: the board is the server's SVG of this seat's view, the
// points a piece may move to come from the server's `legal` list, and every click is
// sent to the server, which referees it. The SVG carries one invisible hit target per
// point (`<rect class="pt" data-point="c3">`) and marks pieces (`<g class="piece"
// data-at="c3" data-owner="south">`); the page adds CSS classes to those targets.
"use strict";

const $ = (sel) => document.querySelector(sel);

// The page's text in the chosen language (see "languages" below): `T(english, chinese)`
// for a string built from parts.
function T(en, zhText) {
  return LANG === "zh-CN" ? zhText : en;
}

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

// ---------------------------------------------------------------- the player

// The player of this browser: {id, name, token} from POST /api/players, kept in
// localStorage (no password: the token is the player; forgetting it forgets the name).
const ME_KEY = "junqi-player";
function me() {
  try {
    const p = JSON.parse(localStorage.getItem(ME_KEY) || "null");
    return p && p.token && p.name ? p : null;
  } catch (_) {
    return null;
  }
}

function showWhoami() {
  const p = me();
  $("#whoami").textContent = p ? "you: " + p.name : "";
}

// A standing in words: "1516 (副排长, 31 points, 4 games)".
function standing(r) {
  return T(Math.round(r.rating) + " (" + r.level.name + ", " + r.points + " points, " + r.games + " game" + (r.games === 1 ? "" : "s") + ")",
    Math.round(r.rating) + "（" + r.level.name + "，" + r.points + " 分，" + r.games + " 局）");
}

// A sign-in link (`/#player=TOKEN`, shown under "Play under this name in another
// browser") makes this browser the player's: the server says whose token it is, the
// page keeps it as if the name had been chosen here, and the link leaves the address
// bar.
async function signInFromLink() {
  const token = new URLSearchParams(location.hash.replace(/^#/, "")).get("player");
  if (!token) return;
  history.replaceState(null, "", location.pathname + location.search);
  try {
    const prof = await api("GET", "/api/players/me", token);
    localStorage.setItem(ME_KEY, JSON.stringify({ id: prof.id, name: prof.name, token }));
  } catch (e) {
    $("#player-error").textContent = e.code === "bad_token"
      ? "This sign-in link is no player's of this server."
      : (e.code ? e.code + ": " : "") + e.message;
  }
}

async function showMe() {
  const p = me();
  showWhoami();
  $("#name-form").hidden = !!p;
  $("#me").hidden = !p;
  refreshMyGames();
  if (!p) return;
  $("#me-name").textContent = p.name;
  // The sign-in link: the token in the fragment, which a browser never sends to the
  // server (nor into its logs).
  $("#me-link").value = location.origin + "/#player=" + encodeURIComponent(p.token);
  try {
    const prof = await api("GET", "/api/players/me", p.token);
    const parts = [];
    if (prof.ratings.people) parts.push(T("against people ", "对真人 ") + standing(prof.ratings.people));
    if (prof.ratings.bots) parts.push(T("against the computer ", "对电脑 ") + standing(prof.ratings.bots));
    $("#me-ratings").textContent = parts.length
      ? T("Rating " + parts.join("; ") + ".", "等级分 " + parts.join("；") + "。")
      : T("Not rated yet.", "还没有等级分。");
  } catch (e) {
    if (e.code === "bad_token") {
      // The server does not know this player (another server, a new database).
      localStorage.removeItem(ME_KEY);
      showMe();
    }
  }
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

// A number field's value, or null when empty.
function num(sel) {
  const v = $(sel).value.trim();
  return v ? Number(v) : null;
}

// The clock of the create form, as the API takes it.
function formClock() {
  const clock = {};
  if (num("#move-seconds") !== null) clock.move_seconds = num("#move-seconds");
  if (num("#game-minutes") !== null) clock.game_seconds = num("#game-minutes") * 60;
  if (num("#increment-seconds")) clock.increment_seconds = num("#increment-seconds");
  if (num("#deploy-seconds") !== null) clock.deploy_seconds = num("#deploy-seconds");
  return clock;
}

// The pairing form's clock: "300+3" (a game clock and its increment) or "60m" (a move clock).
function pairClock(value) {
  if (!value) return {};
  const m = /^(\d+)\+(\d+)$/.exec(value);
  if (m) return { game_seconds: Number(m[1]), increment_seconds: Number(m[2]) };
  const mv = /^(\d+)m$/.exec(value);
  return mv ? { move_seconds: Number(mv[1]) } : {};
}

function lobbyError(e) {
  $("#lobby-error").textContent = e ? (e.code ? e.code + ": " : "") + e.message : "";
}

// Goes to a seat's page (its link holds the seat's token).
function goTo(url) {
  location.href = url;
}

// A clock's settings in words, e.g. "5 min + 3 s" or "60 s a move".
function clockWords(c) {
  if (!c) return T("no clock", "不计时");
  const parts = [];
  if (c.game_seconds) {
    const min = Math.round(c.game_seconds / 60);
    parts.push(c.increment_seconds ? T(min + " min + " + c.increment_seconds + " s", min + " 分钟 + " + c.increment_seconds + " 秒") : T(min + " min", min + " 分钟"));
  }
  if (c.move_seconds) parts.push(T(c.move_seconds + " s a move", "每步 " + c.move_seconds + " 秒"));
  if (c.deploy_seconds) parts.push(T(c.deploy_seconds + " s to deploy", "布阵 " + c.deploy_seconds + " 秒"));
  return parts.join(T(", ", "，")) || T("no clock", "不计时");
}

// The seats of a lobby entry in words: "south: Alice, north: (free)".
function seatWords(seats) {
  return Object.entries(seats || {})
    .map(([side, s]) => T(side + ": ", SIDES_ZH[side] + "方：") +
      (s.name || (s.kind === "human" ? (s.taken ? T("someone", "有人") : T("(free)", "（空）")) : (zh(s.kind) || s.kind))))
    .join(T(", ", "，"));
}

async function refreshLobby() {
  let lists;
  try {
    lists = await api("GET", "/api/lobby");
  } catch (e) {
    return;
  }
  const open = $("#open-list");
  open.textContent = "";
  for (const g of lists.open) {
    const tr = el("tr", { class: "open-game", "data-game": g.game });
    tr.append(el("td", {}, g.rules + (g.rated ? " · rated" : "")), el("td", {}, seatWords(g.seats)), el("td", {}, clockWords(g.clock)));
    const td = el("td", { class: "act" });
    const join = el("button", { type: "button", class: "join" }, "Join");
    join.addEventListener("click", async () => {
      lobbyError(null);
      const p = me();
      try {
        const seat = await api("POST", "/api/games/" + encodeURIComponent(g.game) + "/join", null, p ? { player: p.token } : {});
        goTo(seat.url);
      } catch (e) {
        lobbyError(e);
        refreshLobby();
      }
    });
    td.append(join, " ", el("a", { href: g.url }, "watch"));
    tr.append(td);
    open.append(tr);
  }
  $("#open-empty").hidden = lists.open.length > 0;
  const watch = $("#watch-list");
  watch.textContent = "";
  for (const g of lists.playing) {
    const tr = el("tr", { class: "watch-game", "data-game": g.game });
    tr.append(el("td", {}, g.rules + (g.rated ? " · rated" : "")), el("td", {}, seatWords(g.seats)),
      el("td", {}, g.phase === "deploy" ? T("deploying", "布阵中") : T("ply " + g.ply, "第 " + g.ply + " 手")));
    const td = el("td", { class: "act" });
    td.append(el("a", { href: g.url, class: "watch" }, "watch"));
    tr.append(td);
    watch.append(tr);
  }
  $("#watch-empty").hidden = lists.playing.length > 0;
}

// "Your finished games" (GET /api/players/me/games): each opens from the player's seat
// as a replay. The result's words come from the server in the page's language.
async function refreshMyGames() {
  const p = me();
  $("#my-games").hidden = !p;
  if (!p) return;
  let list;
  try {
    list = (await api("GET", "/api/players/me/games" + (LANG === "zh-CN" ? "?lang=zh-CN" : ""), p.token)).games;
  } catch (_) {
    return; // the list is a courtesy (a bad token is handled by showMe)
  }
  const body = $("#my-games-list");
  body.textContent = "";
  for (const g of list) {
    const tr = el("tr", { class: "my-game " + g.outcome, "data-game": g.id });
    tr.append(el("td", {}, g.rules), el("td", {}, seatWords(g.players)),
      el("td", { class: "outcome" }, g.text || g.outcome),
      el("td", {}, T(g.ply + " plies", g.ply + " 手")));
    const td = el("td", { class: "act" });
    td.append(el("a", { href: g.url, class: "reopen" }, "open"));
    tr.append(td);
    body.append(tr);
  }
  $("#my-games-empty").hidden = list.length > 0;
}

async function refreshBoards() {
  for (const pool of ["people", "bots"]) {
    try {
      const b = await api("GET", "/api/ratings?pool=" + pool);
      const ol = $("#board-" + pool);
      ol.textContent = "";
      for (const p of b.players.slice(0, 10)) ol.append(el("li", {}, p.name + " — " + standing(p)));
      if (!b.players.length) ol.append(el("li", { class: "hint" }, "nobody yet"));
    } catch (_) {
      // the lists are a courtesy
    }
  }
}

// The quick pairing: POST /api/pair answers a game at once, or a ticket to ask about.
const PAIR = { ticket: null, timer: null };
async function pollPair() {
  const p = me();
  if (!PAIR.ticket || !p) return;
  try {
    const r = await api("GET", "/api/pair/" + encodeURIComponent(PAIR.ticket), p.token);
    if (r.paired) {
      PAIR.ticket = null;
      goTo(r.paired.url);
      return;
    }
  } catch (e) {
    pairDone();
    lobbyError(e);
    return;
  }
  PAIR.timer = setTimeout(pollPair, 500 + Math.random() * 500); // jittered: two waiting pages do not poll in step
}

function pairDone() {
  clearTimeout(PAIR.timer);
  PAIR.ticket = null;
  $("#pair-waiting").hidden = true;
  $("#pair").disabled = false;
}

async function lobby() {
  $("#lobby").hidden = false;
  document.title = "junqi · lobby";
  try {
    const { presets, sides } = await api("GET", "/api/presets");
    Object.assign(PRESET_SIDES, sides || {});
    for (const p of presets) {
      $("#preset").append(el("option", { value: p }, p));
      if ((sides[p] || []).length === 2) {
        $("#computer-rules").append(el("option", { value: p }, p));
        $("#pair-rules").append(el("option", { value: p }, p));
      }
    }
    for (const sel of ["#preset", "#computer-rules", "#pair-rules"]) {
      $(sel).value = presets.includes("classic") ? "classic" : presets[0];
    }
  } catch (e) {
    $("#lobby-error").textContent = "Could not load the presets: " + e.message;
  }
  drawSeatChoices();
  signInFromLink().then(showMe);
  // A link pasted into this very page changes only its fragment: no new load.
  window.addEventListener("hashchange", () => signInFromLink().then(showMe));
  refreshLobby();
  refreshBoards();
  $("#copy-me-link").addEventListener("click", () => {
    const link = $("#me-link");
    link.select();
    if (navigator.clipboard) navigator.clipboard.writeText(link.value).catch(() => document.execCommand("copy"));
    else document.execCommand("copy");
  });
  setInterval(refreshLobby, 3000);
  setInterval(refreshBoards, 15000);
  setInterval(refreshMyGames, 15000);
  $("#preset").addEventListener("change", drawSeatChoices);
  $("#custom-rules").addEventListener("input", drawSeatChoices);
  $("#name-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    $("#player-error").textContent = "";
    try {
      const p = await api("POST", "/api/players", null, { name: $("#player-name").value });
      localStorage.setItem(ME_KEY, JSON.stringify(p));
      showMe();
    } catch (e) {
      $("#player-error").textContent = (e.code ? e.code + ": " : "") + e.message;
    }
  });
  $("#forget-me").addEventListener("click", () => {
    if (!confirm("Forget your name in this browser? Without its token nobody can play under it again.")) return;
    localStorage.removeItem(ME_KEY);
    showMe();
  });
  $("#computer-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    lobbyError(null);
    const rules = $("#computer-rules").value;
    const [mine, theirs] = sidesOf(rules);
    const level = $("#computer-level").value;
    const p = me();
    const body = {
      rules,
      seats: { [mine]: "human", [theirs]: level === "greedy" ? "greedy" : { kind: "bot", level: Number(level) } },
      lobby: true,
      rated: !!p,
    };
    if (p) body.player = p.token;
    try {
      const g = await api("POST", "/api/games", null, body);
      goTo(g.seats[mine].url);
    } catch (e) {
      lobbyError(e);
    }
  });
  $("#pair-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    lobbyError(null);
    const p = me();
    if (!p) {
      lobbyError({ message: "choose a name first (above): pairing is between named players" });
      return;
    }
    const body = Object.assign({ player: p.token, rules: $("#pair-rules").value }, pairClock($("#pair-clock").value));
    try {
      const r = await api("POST", "/api/pair", null, body);
      if (r.paired) {
        goTo(r.paired.url);
        return;
      }
      PAIR.ticket = r.waiting.ticket;
      $("#pair-waiting").hidden = false;
      $("#pair").disabled = true;
      PAIR.timer = setTimeout(pollPair, 500 + Math.random() * 500); // jittered: two waiting pages do not poll in step
    } catch (e) {
      lobbyError(e);
    }
  });
  $("#pair-cancel").addEventListener("click", async () => {
    const p = me();
    const t = PAIR.ticket;
    pairDone();
    if (p && t) {
      try {
        await api("DELETE", "/api/pair/" + encodeURIComponent(t), p.token);
      } catch (_) {
        // gone already
      }
    }
  });
  $("#create-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    lobbyError(null);
    let rules;
    try {
      rules = customRules() || $("#preset").value;
    } catch (e) {
      $("#lobby-error").textContent = "The custom rule set is not JSON: " + e.message;
      return;
    }
    const seats = {};
    for (const s of document.querySelectorAll("#seat-choices select")) seats[s.dataset.side] = seatRequest(s.value);
    const listed = $("#listed").checked;
    const p = me();
    const body = Object.assign({ rules, seats, lobby: listed, rated: $("#rated").checked }, formClock());
    if (p) body.player = p.token;
    try {
      const game = await api("POST", "/api/games", null, body);
      if (listed) {
        // The creator's seat is the only one with a token: go and play it.
        const mine = Object.values(game.seats).find((s) => s.url);
        if (mine) {
          goTo(mine.url);
          return;
        }
      }
      showLinks(game);
    } catch (e) {
      lobbyError(e);
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
  events: [], // the seat's log so far: each state brings only the events after it
};

// The query of a state request: the picture, and only the events not yet seen.
function stateQuery() {
  return "?svg=1&events_from=" + G.events.length + (LANG === "zh-CN" ? "&lang=zh-CN" : "") +
    (learning() ? "&beliefs=1" : "");
}

// The learner's view: asked for when the switch is on, for a seat of an unrated game
// in play (the server refuses it in rated games until they end). Remembered.
const LEARN_KEY = "junqi-learner";
function learning() {
  const s = G.state;
  return localStorage.getItem(LEARN_KEY) === "on" && !!s && !!s.seat && !s.rated && inPlay(s);
}

// Marks each unknown enemy piece with how many kinds it can still be (one kind: its
// name), its title listing them: the server's `beliefs`, the seat's own deductions.
function markBeliefs(state) {
  for (const e of document.querySelectorAll("#board .could-be")) e.remove();
  const b = state.beliefs;
  $("#board").classList.toggle("learning", !!b);
  if (!b) return;
  const NS = "http://www.w3.org/2000/svg";
  for (const [point, kinds] of Object.entries(b.pieces)) {
    const g = document.querySelector('#board .piece[data-at="' + point + '"]');
    if (!g || !kinds.length) continue;
    const box = g.getBBox();
    const t = document.createElementNS(NS, "text");
    t.setAttribute("class", "could-be");
    t.setAttribute("x", (box.x + box.width - 2).toFixed(1));
    t.setAttribute("y", (box.y + Math.min(11, box.height * 0.45)).toFixed(1));
    t.setAttribute("text-anchor", "end");
    t.setAttribute("data-kinds", kinds.join(" "));
    t.textContent = kinds.length === 1 ? b.names[kinds[0]] + "?" : String(kinds.length);
    // The likeliest kinds by the modelled beliefs (how the piece has played), as
    // "地雷 62%": only where the piece can still be more than one kind.
    const likely = kinds.length > 1 ? (b.likely && b.likely[point]) || [] : [];
    t.setAttribute("data-likely", likely.map(([k, q]) => k + ":" + q).join(" "));
    const title = document.createElementNS(NS, "title");
    title.textContent = T("could be: ", "可能是：") + kinds.map((k) => b.names[k] || k).join(T(", ", "、")) +
      (likely.length
        ? T("; likeliest: ", "；最可能：") + likely.map(([k, q]) => (b.names[k] || k) + " " + Math.round(q * 100) + "%").join(T(", ", "、"))
        : "");
    t.append(title);
    g.append(t);
  }
}

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
      const state = await api("GET", "/api/games/" + encodeURIComponent(G.id) + stateQuery(), G.token);
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
    const state = await api("POST", "/api/games/" + encodeURIComponent(G.id) + path + stateQuery(), G.token, body === undefined ? {} : body);
    if (state && state.version !== undefined && state.svg) render(state);
    else await refresh();
  } catch (e) {
    showError(e);
    await refresh();
  }
}

function mySeat() {
  return G.state ? G.state.seat : null;
}

// Takes a state's events into the log: they follow on from what the page has, or the
// page asks again for the whole log.
function takeEvents(state) {
  if (state.events_from === G.events.length) {
    G.events = G.events.concat(state.events || []);
    return true;
  }
  if (state.events_from === 0) {
    G.events = (state.events || []).slice();
    return true;
  }
  return false;
}

function render(state) {
  // Ignore an older state that arrives after a newer one.
  if (G.state && state.version < G.state.version) return;
  if (!takeEvents(state)) {
    G.events = [];
    refresh();
    return;
  }
  // A proposed setup may change the picture without a new version: compare both.
  const changed = !G.state || G.state.version !== state.version || G.state.svg !== state.svg;
  G.state = state;
  const seat = state.seat;
  document.title = "junqi · " + state.rules + " · " + (seat || "spectator");
  $("#rules-name").textContent = state.rules + (state.rated ? " (rated)" : "");
  $("#seat").textContent = seat ? "you play " + seat : "spectator";
  $("#phase").textContent = state.phase;
  $("#ply").textContent = String(state.view ? state.view.ply : 0);

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
  if ((changed || !$("#board svg")) && !(G.replay && state.phase === "over")) {
    // The server's picture of this seat's view, drawn by the core (text escaped there).
    $("#board").innerHTML = state.svg || "";
    splitLegend();
  }
  const board = $("#board");
  board.dataset.version = String(state.version);
  board.dataset.phase = state.phase;
  board.dataset.seat = seat || "";
  if (changed) G.selected = null;
  markBoard();
  markBeliefs(state);
  $("#learner-box").hidden = !(seat && !state.rated && inPlay(state) && !isOut(state));
  $("#learner").checked = localStorage.getItem(LEARN_KEY) === "on";
  if (learning() && !state.beliefs) refresh(); // the switch was on before the page knew the game

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

  // the log, in words, numbered by the core's ply (0: the deployment)
  const log = $("#log");
  log.textContent = "";
  for (const e of G.events) {
    const li = el("li", { "data-ply": String(e.ply) });
    li.append(el("span", { class: "ply" }, e.ply ? e.ply + "." : "–"), " " + e.text);
    log.append(li);
  }
  log.scrollTop = log.scrollHeight;

  renderSeats(state);
  renderAfter(state);

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

// Seconds as m:ss.
function mmss(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
}

// What is left of a seat's game clock now (ms), or null without a game clock: the bank
// as of the turn's start, less the running turn's time for the seat to act.
function bankLeft(s, side) {
  const c = s.clock;
  if (!c || !c.remaining_ms || c.remaining_ms[side] === undefined) return null;
  let left = c.remaining_ms[side];
  if (inPlay(s) && s.to_act === side && c.turn_started_ms) left -= Date.now() - c.turn_started_ms;
  return Math.max(0, left);
}

// The seats: who plays each (a name, a bot, an open seat), who is connected, clocks.
// The core's picture holds the board and, below it, its legend (`g.legend`, from
// `data-top`): the board keeps the board part (its viewBox cropped), the side panel's
// key shows the legend part (a copy of the picture's background, definitions and
// legend, nothing else). The board's proportions then size its column (app.css
// --ratio), so that the board is as large as the window allows.
function splitLegend() {
  const svg = $("#board svg");
  const key = $("#key-picture");
  key.textContent = "";
  if (!svg) return;
  const vb = svg.viewBox.baseVal;
  const legend = svg.querySelector("g.legend");
  let height = vb.height;
  if (legend && Number(legend.dataset.top) > 0) {
    const top = Number(legend.dataset.top);
    const copy = svg.cloneNode(false);
    for (const child of svg.children) {
      if (child.tagName === "defs" || child === legend || (child.tagName === "rect" && !child.classList.contains("pt")
          && child.getAttribute("width") === "100%")) copy.append(child.cloneNode(true));
    }
    copy.setAttribute("viewBox", `0 ${top} ${vb.width} ${vb.height - top}`);
    copy.removeAttribute("width");
    copy.removeAttribute("height");
    copy.setAttribute("role", "img");
    copy.setAttribute("aria-label", "key to the board");
    key.append(copy);
    // The key's picture as wide as the legend itself, not the board (siguo's board is
    // three times as wide as its legend, which then showed at a third of its size).
    const drawn = copy.querySelector("g.legend");
    const box = drawn && drawn.getBBox ? drawn.getBBox() : null;
    if (box && box.width > 0) {
      copy.setAttribute("viewBox", `${box.x - 6} ${top} ${box.width + 12} ${vb.height - top}`);
      copy.style.maxWidth = Math.round(box.width + 12) + "px"; // at most its own size
    }
    legend.remove();
    height = top;
    svg.setAttribute("viewBox", `0 0 ${vb.width} ${top}`);
  }
  svg.removeAttribute("width");
  svg.removeAttribute("height");
  if (vb.width > 0 && height > 0) $("#layout").style.setProperty("--ratio", String(vb.width / height));
}

function renderSeats(state) {
  const list = $("#seat-list");
  list.textContent = "";
  for (const [side, s] of Object.entries(state.seats || {})) {
    const who = s.name || (s.kind === "human" ? (s.taken ? "a person" : "(waiting for a player)") : s.kind);
    const li = el("li", { "data-side": side, class: state.to_act === side ? "to-act" : "" });
    li.append(el("span", { class: "side" }, side), el("span", { class: "who" }, who + (side === state.seat ? " (you)" : "")));
    if (s.connected) li.append(el("span", { class: "live", title: "has the game open" }, "●"));
    const out = state.view && (state.view.eliminated || []).includes(side);
    if (out) li.append(el("span", { class: "out" }, "out"));
    li.append(el("span", { class: "bank", "data-side": side }));
    list.append(li);
  }
}

// A finished game opens as a replay: the board shows a step of it (the end at
// first), every piece shown or, with "my view", what the seat saw then; buttons, the
// slider and the arrow keys move through it.
async function showReplay(step) {
  const mine = $("#replay-mine").checked && !!mySeat();
  // No step: the end.
  const q = (step === null ? "?" : "?step=" + step + "&") + "view=" + (mine ? "seat" : "full") +
    (G.token ? "&token=" + encodeURIComponent(G.token) : "") + (LANG === "zh-CN" ? "&lang=zh-CN" : "");
  try {
    const r = await api("GET", "/api/games/" + encodeURIComponent(G.id) + "/replay" + q);
    G.replay = { step: r.step, steps: r.steps };
    $("#board").innerHTML = r.svg;
    splitLegend();
    const board = $("#board");
    board.dataset.replayStep = String(r.step);
    board.dataset.ply = String(r.ply);
    const slider = $("#replay-step");
    slider.max = String(r.steps);
    slider.value = String(r.step);
    $("#replay-text").textContent = "step " + r.step + " of " + r.steps + " (ply " + r.ply + ")" + (r.text ? ": " + r.text : "");
  } catch (e) {
    showError(e);
  }
}

function replayBy(delta) {
  if (!G.replay) return;
  const to = Math.max(0, Math.min(G.replay.steps, G.replay.step + delta));
  if (to !== G.replay.step) showReplay(to);
}

function setUpReplay() {
  $("#replay-start").addEventListener("click", () => G.replay && showReplay(0));
  $("#replay-back").addEventListener("click", () => replayBy(-1));
  $("#replay-forward").addEventListener("click", () => replayBy(1));
  $("#replay-end").addEventListener("click", () => G.replay && showReplay(G.replay.steps));
  $("#replay-step").addEventListener("input", (ev) => showReplay(Number(ev.target.value)));
  $("#replay-mine").addEventListener("change", () => G.replay && showReplay(G.replay.step));
  document.addEventListener("keydown", (ev) => {
    if (!G.replay || ev.target.closest("input, textarea, select")) return;
    const moves = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity };
    if (!(ev.key in moves)) return;
    ev.preventDefault();
    replayBy(moves[ev.key] === -Infinity ? -G.replay.steps : moves[ev.key] === Infinity ? G.replay.steps : moves[ev.key]);
  });
}

// After the end: the rating changes, the replay, and the rematch.
function renderAfter(state) {
  const over = state.phase === "over";
  $("#after").hidden = !over;
  if (!over) return;
  if (!G.replay) {
    G.replay = { step: 0, steps: 0 };
    showReplay(null);
  }
  const box = $("#rating-change");
  box.textContent = "";
  const r = state.ratings;
  if (r) {
    for (const [side, c] of Object.entries(r)) {
      const sign = (n) => (n > 0 ? "+" : "") + n;
      const line = el("div", { class: "rating-line", "data-side": side },
        (side === state.seat ? "Your rating" : (c.name || side) + "'s rating") + ": " + c.rating_before + " → " + c.rating +
        " (" + sign(c.rating_delta) + "), points " + c.points + " (" + sign(c.points_delta) + "), " + c.level.name + " " + c.level.english);
      box.append(line);
    }
  } else if (state.rated) {
    box.textContent = "Rating the game…";
  }
  const rm = $("#rematch");
  rm.hidden = !state.seat;
  rm.textContent = state.rematch ? "Play the rematch" : "Rematch";
}

function tickClock() {
  const s = G.state;
  const c = $("#clock");
  if (!s || !s.clock) {
    c.textContent = "";
    return;
  }
  const parts = [];
  const k = s.clock;
  if (k.deadline_ms && inPlay(s)) {
    const left = Math.max(0, Math.ceil((k.deadline_ms - Date.now()) / 1000));
    parts.push(s.to_act === mySeat() ? T("You have " + left + " s", "你还有 " + left + " 秒")
      : T((s.to_act || "") + " has " + left + " s", (SIDES_ZH[s.to_act] || "") + "方还有 " + left + " 秒"));
    c.dataset.left = String(left);
  } else if (k.deadline_ms && s.phase === "deploy") {
    const left = Math.max(0, Math.ceil((k.deadline_ms - Date.now()) / 1000));
    parts.push(T("Deployment ends in " + left + " s", "布阵还剩 " + left + " 秒"));
    c.dataset.left = String(left);
  } else {
    const words = [];
    if (k.move_seconds) words.push(T(k.move_seconds + " s per move", "每步 " + k.move_seconds + " 秒"));
    if (k.game_seconds) {
      const min = Math.round(k.game_seconds / 60);
      words.push(T(min + " min a game" + (k.increment_seconds ? " + " + k.increment_seconds + " s a move" : ""),
        "每局 " + min + " 分钟" + (k.increment_seconds ? " + 每步 " + k.increment_seconds + " 秒" : "")));
    }
    if (k.deploy_seconds) words.push(T(k.deploy_seconds + " s to deploy", "布阵 " + k.deploy_seconds + " 秒"));
    parts.push(words.join(T(", ", "，")));
  }
  const t = k.timeouts || {};
  const missed = Object.entries(t).filter(([, n]) => n > 0).map(([side, n]) => side + " " + n);
  if (missed.length) parts.push(T("time-outs: " + missed.join(", "), "超时：" + missed.map((x) => x.replace(/^\w+/, (w) => (SIDES_ZH[w] || w) + "方")).join("，")));
  c.textContent = parts.join(" · ");
  // Each seat's game clock beside its name, counting down for the seat to act.
  for (const span of document.querySelectorAll("#seat-list .bank")) {
    const left = bankLeft(s, span.dataset.side);
    span.textContent = left === null ? "" : mmss(left);
    span.dataset.ms = left === null ? "" : String(Math.round(left));
    span.classList.toggle("low", left !== null && left < 10000);
  }
}

function listen() {
  if (!window.EventSource) {
    setInterval(refresh, 2000);
    return;
  }
  const es = new EventSource("/api/games/" + encodeURIComponent(G.id) + "/events" + authQuery());
  G.source = es;
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
  showWhoami();
  const params = new URLSearchParams(location.search);
  const hash = new URLSearchParams(location.hash.replace(/^#/, ""));
  G.token = params.get("token") || hash.get("token") || null;
  $("#game").hidden = false;
  $("#board").addEventListener("click", onBoardClick);
  setUpReplay();
  // A page left for another keeps no stream open: a browser allows six connections to
  // one server, and the streams of pages kept in its back-forward cache held them (a
  // player who had opened six games waited for good on the seventh's first move).
  // Back on the page, it listens again and fetches what it missed.
  window.addEventListener("pagehide", () => {
    if (G.source) G.source.close();
    G.source = null;
  });
  window.addEventListener("pageshow", (ev) => {
    if (ev.persisted && !G.source) {
      listen();
      refresh();
    }
  });
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
  $("#learner").addEventListener("change", () => {
    localStorage.setItem(LEARN_KEY, $("#learner").checked ? "on" : "off");
    refresh();
  });
  $("#offer-draw").addEventListener("click", () => send("/draw", { offer: true }));
  $("#accept-draw").addEventListener("click", () => send("/draw", { accept: true }));
  $("#decline-draw").addEventListener("click", () => send("/draw", { decline: true }));
  $("#rematch").addEventListener("click", async () => {
    showError(null);
    try {
      const r = await api("POST", "/api/games/" + encodeURIComponent(G.id) + "/rematch", G.token, {});
      location.href = r.url;
    } catch (e) {
      showError(e);
    }
  });
  setInterval(tickClock, 250);
  refresh();
  listen();
}


// ---------------------------------------------------------------- languages

// Every string of the page in Chinese (zh-CN) and English (en, the page's own text).
// The language is the browser's (Chinese for zh*), or the one chosen with the button at
// the top, kept in localStorage ("junqi-lang"); choosing reloads the page. In Chinese,
// every text node and every placeholder, title and label the page shows is put into
// Chinese as it appears (a MutationObserver): exact strings from ZH, strings with parts
// (a seat, a number) from ZH_PATTERNS. The log's event texts, the result and the
// replay's texts come from the server in the page's language (`&lang=zh-CN`: the core's
// narrator in Chinese); the key (the legend of the server's picture, shown beside the
// board) is translated here like the page's own text.
// tests/web/driver.py's `chinese` scenario checks that no English is left on the lobby,
// a game and its replay in Chinese.
const LANG_KEY = "junqi-lang";
const LANG = (() => {
  try {
    const chosen = localStorage.getItem(LANG_KEY);
    if (chosen === "zh-CN" || chosen === "en") return chosen;
  } catch (_) { /* no storage: the browser's language */ }
  return (navigator.language || "").toLowerCase().startsWith("zh") ? "zh-CN" : "en";
})();

const SIDES_ZH = { south: "南", north: "北", east: "东", west: "西" };
const ZH = {
  "junqi · 军棋 referee": "军棋裁判",
  "a referee that shows each seat only its own view": "每一方只看见自己该看见的",
  "Your name": "你的名字",
  "Your name and a secret token stay in this browser (no password): they sign your games and carry your rating.":
    "名字和一个秘密令牌保存在这个浏览器里（没有密码）：对局以它署名，等级分记在它名下。",
  "Name": "名字",
  "Play under this name": "用这个名字下棋",
  "Playing as": "当前身份：",
  "Play under this name in another browser": "在别的浏览器里用这个名字",
  "Open this sign-in link in the other browser or device. It is your name's secret: whoever has it plays as you, so send it only to yourself.":
    "在另一个浏览器或设备上打开这个登录链接。它是你名字的秘密：谁拿到它谁就能以你的名义下棋，只发给你自己。",
  "sign-in link": "登录链接",
  "Copy": "复制",
  "Forget me in this browser": "在这个浏览器里忘掉我",
  "Play the computer": "人机对弈",
  "Rules": "规则",
  "Level": "难度",
  "greedy (fast)": "贪心（快）",
  "search level 1": "搜索 1 级",
  "search level 2": "搜索 2 级",
  "search level 3 (about 1 s a move)": "搜索 3 级（每步约 1 秒）",
  "search level 4": "搜索 4 级",
  "search level 5": "搜索 5 级",
  "Play": "开始",
  "Quick pairing": "快速配对",
  "Play the next person who asks for the same rules and clock (needs a name).": "和下一个选了相同规则和计时的人对弈（需要名字）。",
  "Clock": "计时",
  "no clock": "不计时",
  "5 min + 3 s a move": "5 分钟 + 每步 3 秒",
  "10 min + 5 s a move": "10 分钟 + 每步 5 秒",
  "60 s a move": "每步 60 秒",
  "Find an opponent": "寻找对手",
  "Waiting for an opponent…": "正在等待对手…",
  "Stop waiting": "不等了",
  "Open games": "可加入的对局",
  "(join a free seat)": "（坐上空位）",
  "No open game: create one below, listed in the lobby.": "还没有可加入的对局：在下面创建一局，并列在大厅里。",
  "Games to watch": "可观战的对局",
  "No game under way.": "没有正在进行的对局。",
  "New game": "新对局",
  "Preset": "预设",
  "or paste a custom rule set (JSON)": "或粘贴自定义规则（JSON）",
  "Seats": "座位",
  "Seconds per move": "每步秒数",
  "Minutes per game": "每局分钟数",
  "none": "无",
  "+ seconds a move": "每步加秒",
  "Seconds to deploy": "布阵秒数",
  "no limit": "不限",
  "Players": "玩家",
  "List it in the lobby: the other human seats wait for whoever joins (you take the first)": "列在大厅里：其余真人座位等人加入（你坐第一个）",
  "Rated (needs a name; the platform's rules: no resignation before move 20)": "计分（需要名字；平台规则：20 手之前不能认输）",
  "Create game": "创建对局",
  "Game": "对局",
  "Send each player the link of their seat (it holds the seat's secret token); anyone may watch with the spectator link.":
    "把各自座位的链接发给每位玩家（链接里有该座位的秘密令牌）；任何人都可以用观战链接观看。",
  "Ratings": "等级分",
  "Elo (1500 to start) and the platform's points and 18 levels; games against the computer count in their own pool.":
    "Elo 等级分（从 1500 开始）和平台的积分与 18 个级别；人机对局单独计算。",
  "People": "真人",
  "Against the computer": "对电脑",
  "· phase": "· 阶段",
  "· ply": "· 第几手：",
  "board": "棋盘",
  "Deployment": "布阵",
  "Random setup, then click two of your pieces to swap them; or paste a setup. Confirm when ready.":
    "先随机布阵，再点击自己的两个棋子交换位置；或粘贴布阵。准备好后确认。",
  "Random setup": "随机布阵",
  "Paste a setup": "粘贴布阵",
  "Use this setup": "用这个布阵",
  "Confirm deployment": "确认布阵",
  "Offer draw": "提和",
  "Accept draw": "同意和棋",
  "Decline draw": "拒绝和棋",
  "Resign": "认输",
  "replay of the game": "对局回放",
  "Replay": "回放",
  "the start (Home)": "开头（Home）",
  "one step back (←)": "后退一步（←）",
  "one step forward (→)": "前进一步（→）",
  "the end (End)": "结尾（End）",
  "my view": "我的视角",
  "step": "步",
  "Rematch": "再来一局",
  "Play the rematch": "去下这局再战",
  "Back to the lobby": "回到大厅",
  "Download my record": "下载我的棋谱",
  "Download the full record": "下载完整棋谱",
  "Log": "记录",
  "Key": "图例",
  "what the marks on the board mean": "棋盘上标记的意思",
  "a piece you may move": "可以走的棋子",
  "the piece you chose": "选中的棋子",
  "where it may go": "可以走到的位置",
  "a face-down tile you may turn (翻棋)": "可以翻开的暗子（翻棋）",
  "key to the board": "棋盘图例",
  "Game over": "对局结束",
  "spectator": "观战",
  "human": "真人",
  "random player": "随机玩家",
  "bot: greedy (fast)": "电脑：贪心（快）",
  "Join": "加入",
  "Learner's view": "学习视图",
  "Each enemy piece you have not seen shows how many kinds it can still be, by what you have seen (hover for the kinds, and the likeliest by how the piece has played). Not in rated games.":
    "每个你没看到的敌方棋子显示它按你已看到的情况还可能是几种棋子（鼠标悬停可看是哪几种，以及按它的走法最可能是哪种）。计分对局中不可用。",
  "Your finished games": "你下完的棋局",
  "No finished game yet.": "还没有下完的棋局。",
  "open": "打开",
  "watch": "观战",
  "nobody yet": "还没有人",
  "Not rated yet.": "还没有等级分。",
  "Rating the game…": "正在计算等级分…",
  "has the game open": "正打开着这局",
  "out": "出局",
  "a person": "真人",
  "(waiting for a player)": "（等待玩家）",
  "random": "随机",
  "greedy": "贪心",
  "You are out of the game": "你已出局",
  "spectators: ": "观战：",
  "Language": "语言",
  "This sign-in link is no player's of this server.": "这个登录链接不属于本服务器上的任何玩家。",
  "move": "行棋",
  "deploy": "布阵",
  "over": "结束",
  "reaction": "应对",
  "(rated)": "（计分）",
  // The legend of the server's picture, as the key shows it.
  "your piece": "你的棋子",
  "enemy, unknown": "敌方，未知",
  "enemy, revealed": "敌方，已亮明",
  "face down 暗子": "暗子",
  "last move": "上一步",
  "last combat": "上一次交战",
  "railway 铁路": "铁路",
  "road 公路": "公路",
  "camp 行营": "行营",
  "HQ 大本营": "大本营",
  "front line, mountain 山界": "前线、山界",
  "centre 中央": "中央",
  "stronghold 据点": "据点",
  "sea 海": "海",
  "anchorage 锚地": "锚地",
  "harbour mouth 海口": "海口",
  "pier, bridge 码头": "码头、桥",
  "air line 航线": "航线",
  "airport 机场": "机场",
  "plane 飞机": "飞机",
  "ship 舰艇": "舰艇",
};
const SIDE = "(south|north|east|west)";
const ZH_PATTERNS = [
  [new RegExp("^you: (.+)$"), (m) => "你：" + m[1]],
  [new RegExp("^you play " + SIDE + "$"), (m) => "你执" + SIDES_ZH[m[1]] + "方"],
  [new RegExp("^Your turn \\(" + SIDE + "\\)$"), (m) => "轮到你（" + SIDES_ZH[m[1]] + "方）"],
  [new RegExp("^" + SIDE + " to act$"), (m) => "轮到" + SIDES_ZH[m[1]] + "方"],
  [new RegExp("^" + SIDE + " offers a draw$"), (m) => SIDES_ZH[m[1]] + "方提和"],
  [new RegExp("^" + SIDE + "$"), (m) => SIDES_ZH[m[1]]],
  [new RegExp("^Deployment: waiting for (.*)$"), (m) => "布阵：等待 " + m[1].replace(/south|north|east|west/g, (x) => SIDES_ZH[x] + "方")],
  [/^You are out of the game; (south|north|east|west) to act$/, (m) => "你已出局；轮到" + SIDES_ZH[m[1]] + "方"],
  [/^bot: search level (\d)( \(about 1 s a move\))?$/, (m) => "电脑：搜索 " + m[1] + " 级" + (m[2] ? "（每步约 1 秒）" : "")],
  [/^search (\d)$/, (m) => "搜索 " + m[1] + " 级"],
  [/^step (\d+) of (\d+) \(ply (\d+)\)(: .*)?$/, (m) => "第 " + m[1] + " / " + m[2] + " 步（第 " + m[3] + " 手）" + (m[4] || "")],
  [/^Rating (.*)\.$/, (m) => "等级分 " + m[1].replace("against people", "对真人").replace("against the computer", "对电脑")
    .replace(/ points/g, " 分").replace(/ games?\)/g, " 局）").replace(/\(/g, "（") + "。"],
  [/^Your rating: (.*)$/, (m) => "你的等级分：" + m[1].replace(", points", "，积分")],
  [/^(.+)'s rating: (.*)$/, (m) => m[1] + " 的等级分：" + m[2].replace(", points", "，积分")],
  [/^(\d+) s to deploy$/, (m) => "布阵 " + m[1] + " 秒"],
  [/^(.+) \(you\)$/, (m) => (zh(m[1]) || m[1]) + "（你）"],
  [/^(.+) \(rated\)$/, (m) => m[1] + "（计分）"],
];

function zh(text) {
  const key = text.trim();
  if (!key || !/[A-Za-z]/.test(key)) return null;
  if (Object.prototype.hasOwnProperty.call(ZH, key)) return text.replace(key, ZH[key]);
  for (const [re, f] of ZH_PATTERNS) {
    const m = key.match(re);
    if (m) return text.replace(key, f(m));
  }
  return null;
}

// The server's parts of the page (the board, the log, the result) and what a person
// types are not translated.
const UNTRANSLATED = "#board, #log, #result, textarea, script, style, #me-name, #whoami";

function translate(root) {
  if (LANG !== "zh-CN") return;
  const skip = (n) => {
    const e = n.nodeType === Node.ELEMENT_NODE ? n : n.parentElement;
    return !e || !!e.closest(UNTRANSLATED);
  };
  const text = (n) => {
    if (skip(n)) return;
    const t = zh(n.nodeValue);
    if (t !== null && t !== n.nodeValue) n.nodeValue = t;
  };
  const attrs = (e) => {
    if (skip(e)) return;
    for (const a of ["placeholder", "title", "aria-label"]) {
      const v = e.getAttribute(a);
      const t = v && zh(v);
      if (t !== null && t !== undefined && t !== v) e.setAttribute(a, t);
    }
  };
  if (root.nodeType === Node.TEXT_NODE) return text(root);
  if (root.nodeType !== Node.ELEMENT_NODE) return;
  attrs(root);
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (n.nodeType === Node.TEXT_NODE) text(n);
    else attrs(n);
  }
}

function setUpLanguage() {
  document.documentElement.lang = LANG;
  const button = el("button", { type: "button", id: "lang", title: "Language" }, LANG === "zh-CN" ? "English" : "中文");
  button.addEventListener("click", () => {
    try {
      localStorage.setItem(LANG_KEY, LANG === "zh-CN" ? "en" : "zh-CN");
    } catch (_) { /* no storage: nothing to remember */ }
    location.reload();
  });
  $("#top").append(button);
  if (LANG !== "zh-CN") return;
  document.title = zh(document.title) || document.title;
  translate(document.body);
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === "characterData") translate(r.target);
      else if (r.type === "attributes") translate(r.target);
      else for (const n of r.addedNodes) translate(n);
    }
  }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true,
    attributeFilter: ["placeholder", "title", "aria-label"] });
}

setUpLanguage();
const m = location.pathname.match(/^\/play\/([^/]+)\/?$/);
if (m) game(decodeURIComponent(m[1]));
else lobby();
