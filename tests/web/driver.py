#!/usr/bin/env python3
"""Browser tests of the junqi-web page: headless Chromium driven over W3C WebDriver.

Plain standard library: urllib speaks the W3C WebDriver protocol to chromedriver (the
protocol is a handful of JSON requests; a client library would add a dependency and a
download for no gain). Started by tests/web/run.sh, which installs Chromium and builds
the server; this script starts the server (port 0, temporary database) and
chromedriver itself and stops both at the end.

What it does, all through the page (WebDriver's own clicks on the board's hit targets,
buttons and the lobby's options):
  lobby    create a classic game with two human seats; read the seat links.
  classic  two browser sessions (separate Chrome instances, separate profiles) at
           1920 x 1080 take South and North of a quick classic (no-capture limit 20
           plies, a custom rule set pasted into the lobby): random setup, a swap of two
           own pieces by clicking them, a pasted setup, confirm; a draw offered and
           declined; then each plays a random highlighted move in turn (click a piece,
           then one of its highlighted targets) to the end of the whole game.
  siguo    one human seat (South) at 1920 x 1080 against three random seats, a whole
           quick siguo (no-capture limit 24): South plays until it is out or the game
           ends, the random seats to the end.
  fanqi    South at 1920 x 1080 against a greedy bot (chosen in the lobby), a whole
           quick 翻棋 (limit 20): flips face-down tiles by clicking them.
  sanjun   South (a quick sanjun-modern, limit 20) at 1920 x 1080 against a random
           seat, a whole game, planes first when one may move (air positions end in ^).
  pictures South's page of one fixed classic game at 390, 1024, 1440 and 1920 px,
           compared with docs/img/web-SIZE.png (tests/render/compare.py's tolerance).
  sizes    the board at 390, 1024, 1440 and 1920 px for each family, a move by clicks.
  chinese  the lobby, a whole quick game by clicks and its replay in Chinese on a phone
           (390 x 844): no English word left.
  players  names, a sign-in link, a rated listed game with a game clock, quick
           pairing, a game against the computer to the end, its replay, the rematch,
           the player's finished games reopened from the lobby.
Each whole game fails if it has not ended within WHOLE_GAME_MOVES moves by South.
After every update each page's DOM (outerHTML) is checked: no enemy piece shows a kind
the seat does not know. The truth comes from the server with the other seats' tokens
(classic: both seats are humans) and from the full record after the end (the setups:
the first position of the game is checked against them).

  python3 tests/web/driver.py --server target/release/junqi-web [--screenshots DIR]
"""

from __future__ import annotations

import argparse
import base64
import html.parser
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

# The repository (this file is tests/web/driver.py).
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The fixed game of the `pictures` scenario: classic, these setups, these six plies.
PICTURE_SETUPS = {
    "south": {"a1": "battalion_commander", "a2": "mine", "a3": "army_commander", "a4": "platoon_leader", "a5": "bomb",
              "a6": "platoon_leader", "b1": "division_commander", "b2": "brigade_commander", "b4": "engineer",
              "b6": "company_commander", "c1": "brigade_commander", "c2": "mine", "c3": "regiment_commander",
              "c5": "engineer", "c6": "engineer", "d1": "flag", "d2": "battalion_commander", "d4": "platoon_leader",
              "d6": "division_commander", "e1": "mine", "e2": "bomb", "e3": "company_commander", "e4": "commander",
              "e5": "regiment_commander", "e6": "company_commander"},
    "north": {"a10": "bomb", "a11": "engineer", "a12": "company_commander", "a7": "battalion_commander",
              "a8": "platoon_leader", "a9": "division_commander", "b11": "engineer", "b12": "flag", "b7": "platoon_leader",
              "b9": "company_commander", "c10": "regiment_commander", "c11": "mine", "c12": "brigade_commander",
              "c7": "regiment_commander", "c8": "bomb", "d11": "commander", "d12": "mine", "d7": "platoon_leader",
              "d9": "company_commander", "e10": "army_commander", "e11": "mine", "e12": "division_commander",
              "e7": "battalion_commander", "e8": "brigade_commander", "e9": "engineer"},
}
PICTURE_MOVES = ["b4-b5", "a7-a6", "d6-d5", "b9-c9", "d4-c4", "d7-d8"]
# The most moves South may need to finish a whole game of the quick rule sets (a low
# no-capture limit) at desktop size; more fails the test.
WHOLE_GAME_MOVES = 200
CHECKS = {"dom": 0, "truth": 0, "skipped": 0}


def log(msg: str) -> None:
    print(f"-- web: {msg}", flush=True)


class Failure(Exception):
    pass


def check(cond: bool, msg: str) -> None:
    if not cond:
        raise Failure(msg)


# ------------------------------------------------------------------ HTTP helpers


def http(method: str, url: str, body: Any = None, token: str | None = None, timeout: float = 30) -> Any:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    if body is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as res:
            raw = res.read()
    except urllib.error.HTTPError as e:
        raw = e.read()
        try:
            payload = json.loads(raw)
        except ValueError:
            payload = raw.decode(errors="replace")
        raise Failure(f"{method} {url}: HTTP {e.code}: {payload}") from None
    return json.loads(raw) if raw else None


# ------------------------------------------------------------------ WebDriver


class WebDriverError(Exception):
    def __init__(self, error: str, message: str):
        super().__init__(f"{error}: {message}")
        self.error = error


ELEMENT = "element-6066-11e4-a52e-4f735466cecf"


class Browser:
    """One WebDriver session: its own Chrome process and profile (a separate context)."""

    def __init__(self, driver_url: str, chromium: str, name: str):
        self.base = driver_url
        self.name = name
        caps = {
            "capabilities": {
                "alwaysMatch": {
                    "browserName": "chrome",
                    "unhandledPromptBehavior": "ignore",
                    "goog:chromeOptions": {
                        "binary": chromium,
                        "args": [
                            "--headless=new",
                            "--no-sandbox",
                            "--disable-gpu",
                            "--disable-dev-shm-usage",
                            "--window-size=1400,1100",
                            "--force-device-scale-factor=1",
                            "--no-first-run",
                            "--lang=en-US",
                        ],
                    },
                }
            }
        }
        # A first Chromium start on a fresh, busy machine (its font cache being built)
        # can take a minute: the session gets three minutes and one more try.
        for attempt in (1, 2):
            try:
                value = self._raw("POST", "/session", caps, timeout=180)
                break
            except TimeoutError:
                if attempt == 2:
                    raise Failure(f"{name}: Chromium did not start a session in 3 minutes, twice") from None
                log(f"{name}: Chromium did not start a session in 3 minutes; trying again")
        self.session = value["sessionId"]

    def _raw(self, method: str, path: str, body: Any = None, timeout: float = 60) -> Any:
        data = json.dumps({} if body is None and method == "POST" else body).encode() if method == "POST" else None
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as res:
                payload = json.loads(res.read())
        except urllib.error.HTTPError as e:
            payload = json.loads(e.read())
            v = payload.get("value", {})
            raise WebDriverError(v.get("error", "unknown"), v.get("message", "")[:300]) from None
        return payload["value"]

    def cmd(self, method: str, path: str, body: Any = None) -> Any:
        return self._raw(method, f"/session/{self.session}{path}", body)

    def get(self, url: str) -> None:
        self.cmd("POST", "/url", {"url": url})

    def js(self, script: str, *args: Any) -> Any:
        return self.cmd("POST", "/execute/sync", {"script": script, "args": list(args)})

    def find(self, css: str) -> str:
        return self.cmd("POST", "/element", {"using": "css selector", "value": css})[ELEMENT]

    def find_all(self, css: str) -> list[str]:
        return [e[ELEMENT] for e in self.cmd("POST", "/elements", {"using": "css selector", "value": css})]

    def click(self, css: str) -> None:
        """A real click (WebDriver element click: scroll into view, pointer at the centre)."""
        self.cmd("POST", f"/element/{self.find(css)}/click")

    def type(self, css: str, text: str) -> None:
        el = self.find(css)
        self.cmd("POST", f"/element/{el}/clear")
        self.cmd("POST", f"/element/{el}/value", {"text": text})

    def accept_alert(self) -> None:
        self.cmd("POST", "/alert/accept")

    def html(self) -> str:
        return self.js("return document.documentElement.outerHTML;")

    def screenshot(self, path: str) -> None:
        png = base64.b64decode(self.cmd("GET", "/screenshot"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(png)
        log(f"screenshot {path}")

    def wait(self, script: str, what: str, timeout: float = 15, *args: Any) -> Any:
        end = time.monotonic() + timeout
        while True:
            v = self.js(script, *args)
            if v:
                return v
            if time.monotonic() > end:
                raise Failure(f"{self.name}: timed out waiting for {what}")
            time.sleep(0.03)

    def quit(self) -> None:
        try:
            self.cmd("DELETE", "")
        except Exception:
            pass


# ------------------------------------------------------------------ page state

PAGE_STATE = """
const b = document.querySelector('#board');
const pts = (c) => Array.from(document.querySelectorAll('#board .pt.' + c)).map(e => e.dataset.point);
const r = document.querySelector('#result');
return {
  version: b && b.dataset.version ? Number(b.dataset.version) : -1,
  phase: b ? b.dataset.phase : '',
  seat: b ? b.dataset.seat : '',
  toAct: document.querySelector('#turn').dataset.toAct || '',
  turn: document.querySelector('#turn').textContent,
  result: r.textContent,
  over: r.dataset.over === 'true',
  from: pts('from'), flip: pts('flip'), target: pts('target'), selected: pts('selected'),
  message: document.querySelector('#message').textContent,
  hasSvg: !!document.querySelector('#board svg'),
};
"""


def page_state(b: Browser) -> dict[str, Any]:
    return b.js(PAGE_STATE)


class PieceParser(html.parser.HTMLParser):
    """The pieces a page shows: every `<g class="piece ...">` in the board's SVG, with
    its attributes, the text of its labels and its title."""

    def __init__(self) -> None:
        super().__init__()
        self.pieces: list[dict[str, Any]] = []
        self.depth = 0
        self.cur: dict[str, Any] | None = None
        self.piece_depth = -1
        self.in_title = False
        self.in_text = False
        self.points: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "rect" and "pt" in a.get("class", "").split():
            self.points.append(a.get("data-point", ""))
        if tag in ("rect", "circle", "path", "br", "img", "input", "meta", "link"):
            return  # void or self-closed in the DOM's serialisation of SVG
        self.depth += 1
        if tag == "g" and "piece" in a.get("class", "").split() and self.cur is None:
            self.cur = {
                "class": a.get("class", "").split(),
                "at": a.get("data-at"),
                "owner": a.get("data-owner"),
                "kind": a.get("data-kind"),
                "text": "",
                "title": "",
            }
            self.piece_depth = self.depth
        elif tag == "title":
            self.in_title = True
        elif tag == "text":
            self.in_text = True

    def handle_endtag(self, tag: str) -> None:
        if tag in ("rect", "circle", "path", "br", "img", "input", "meta", "link"):
            return
        if tag == "title":
            self.in_title = False
        elif tag == "text":
            self.in_text = False
        if self.cur is not None and self.depth == self.piece_depth and tag == "g":
            self.pieces.append(self.cur)
            self.cur = None
        self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.cur is None:
            return
        if self.in_title:
            self.cur["title"] += data
        elif self.in_text:
            self.cur["text"] += data


def dom_pieces(html_text: str) -> tuple[list[dict[str, Any]], list[str]]:
    p = PieceParser()
    p.feed(html_text)
    return p.pieces, p.points


def check_dom(name: str, html_text: str, seat: str, known: dict[str, str | None],
              truth: dict[str, tuple[str, str]] | None) -> None:
    """No enemy kind the seat does not know is shown in the page.

    `known`: point -> kind the seat's own API view gives (None: unknown), for pieces not
    the seat's own army. `truth`: point -> (owner, kind) of enemy pieces, when known.
    """
    pieces, points = dom_pieces(html_text)
    check(len(points) == len(set(points)) and points, f"{name}: hit targets {len(points)}")
    CHECKS["dom"] += 1
    for p in pieces:
        at, owner = p["at"], p["owner"]
        check(at is not None, f"{name}: a piece without data-at")
        if owner == seat or (owner and "own" in p["class"]):
            continue
        shown = p["kind"] or p["text"].strip()
        if at not in known or known[at] is None:
            # Unknown to the seat: no kind attribute, no label text, the title says unknown.
            check(not p["kind"], f"{name}: unknown enemy at {at} has data-kind {p['kind']}")
            check(not p["text"].strip(), f"{name}: unknown enemy at {at} has label {p['text']!r}")
            check("own" not in p["class"] and "revealed" not in p["class"],
                  f"{name}: unknown enemy at {at} drawn as {p['class']}")
            if truth and at in truth:
                kind_words = truth[at][1].replace("_", " ")
                check(kind_words not in p["title"], f"{name}: title at {at} names {kind_words}: {p['title']}")
        elif shown:
            check(p["kind"] == known[at], f"{name}: {at} shows {p['kind']}, the seat knows {known[at]}")
        if truth is not None and at in truth and p["kind"]:
            check(truth[at][1] == p["kind"], f"{name}: {at} shows {p['kind']}, truly {truth[at]}")
    if truth is not None:
        CHECKS["truth"] += 1
        # Every enemy piece of the truth that the page shows with a kind is one the seat knows.
        for at, (owner, kind) in truth.items():
            dom = [p for p in pieces if p["at"] == at]
            for p in dom:
                if p["kind"] or p["text"].strip():
                    check(known.get(at) == kind, f"{name}: {at} ({owner}'s {kind}) shown, not known")


def view_known(state: dict[str, Any], seat: str) -> dict[str, str | None]:
    """Point -> kind (or None) for every piece in a seat's API view that is not its own."""
    army = state["view"].get("army") or seat
    out: dict[str, str | None] = {}
    for p in state["view"]["pieces"]:
        if p.get("owner") == army:
            continue
        out[p["point"]] = p.get("kind")
    return out


def own_pieces(state: dict[str, Any]) -> dict[str, tuple[str, str]]:
    army = state["view"].get("army") or state["seat"]
    return {p["point"]: (p["owner"], p["kind"]) for p in state["view"]["pieces"] if p.get("owner") == army and p.get("kind")}


# ------------------------------------------------------------------ the games


class Run:
    def __init__(self, base: str, driver_url: str, chromium: str, shots: str | None):
        self.base = base
        self.driver_url = driver_url
        self.chromium = chromium
        self.shots = shots
        self.browsers: list[Browser] = []
        self.moves = 0
        self.clicks = 0
        self.script_clicks = 0

    def browser(self, name: str) -> Browser:
        b = Browser(self.driver_url, self.chromium, name)
        self.browsers.append(b)
        return b

    def api(self, gid: str, token: str | None) -> dict[str, Any]:
        return http("GET", f"{self.base}/api/games/{gid}", token=token)

    def shot(self, b: Browser, name: str) -> None:
        if self.shots:
            b.screenshot(os.path.join(self.shots, name))

    # -- lobby
    def lobby(self, b: Browser, rules: str, seats: dict[str, str], seconds: int | None = None,
              custom: str | None = None) -> dict[str, str]:
        b.get(self.base + "/")
        b.wait("return document.querySelectorAll('#preset option').length > 0", "presets")
        # The rule set is chosen as a person does: a WebDriver click on its option.
        b.click(f'#preset option[value="{rules}"]')
        check(b.js("return document.querySelector('#preset').value") == rules, f"the lobby chose {rules}")
        if custom:
            # Paste a custom rule set: open the details, type the JSON (the seat
            # choices follow its sides).
            b.click("#custom summary")
            b.type("#custom-rules", custom)
        for side, kind in seats.items():
            b.js("document.querySelector('#seat-' + arguments[0]).value = arguments[1];", side, kind)
        if seconds:
            b.type("#move-seconds", str(seconds))
        b.click("button#create")
        b.wait("return !document.querySelector('#links').hidden", "the seat links")
        links = b.js("""const out = {};
            for (const a of document.querySelectorAll('#link-list a')) out[a.id.replace('link-', '')] = a.href;
            return out;""")
        check("spectate" in links, f"lobby: no spectator link: {links}")
        for side, kind in seats.items():
            check((side in links) == (kind == "human"), f"lobby: links {links} for seats {seats}")
        return links

    # -- deployment through the page
    def deploy(self, b: Browser, seat: str, swap: bool, paste: bool = False) -> None:
        b.wait("return document.querySelector('#board svg') && !document.querySelector('#deploy').hidden", f"{seat}'s deploy controls")
        v0 = page_state(b)["version"]
        b.click("button#random-setup")
        b.wait("return document.querySelectorAll('#board .piece.own').length > 0", f"{seat}'s proposed setup")
        if swap:
            pieces = b.js("""return Array.from(document.querySelectorAll('#board .piece.own'))
                .map(g => [g.dataset.at, g.dataset.kind]);""")
            free = [(at, k) for at, k in pieces if k not in ("flag", "mine", "bomb", "landmine")]
            random.shuffle(free)
            (a, ka), (c, kc) = free[0], free[1]
            for _ in range(5):
                if ka != kc:
                    break
                random.shuffle(free)
                (a, ka), (c, kc) = free[0], free[1]
            v = page_state(b)["version"]
            b.click(f'#board .pt[data-point="{a}"]')
            b.wait("return document.querySelector('#board .pt.selected')", "selection")
            b.click(f'#board .pt[data-point="{c}"]')
            self.clicks += 2
            b.wait(f"""const g = document.querySelector('#board .piece[data-at="{a}"]');
                return g && g.dataset.kind === arguments[0];""", f"swap of {a} and {c}", 10, kc)
            log(f"{seat}: swapped {a} ({ka}) and {c} ({kc}) by clicking")
        if paste:
            # Paste a setup: the proposed one with two pieces exchanged, as JSON.
            setup = dict(b.js("""return Array.from(document.querySelectorAll('#board .piece.own'))
                .map(g => [g.dataset.at, g.dataset.kind]);"""))
            free = sorted(p for p, k in setup.items() if k in ("engineer", "platoon_commander", "company_commander"))
            a, c = next((x, y) for x in free for y in free if setup[x] != setup[y])
            setup[a], setup[c] = setup[c], setup[a]
            b.click("#deploy details summary")
            b.type("#setup-text", json.dumps(setup))
            b.click("button#paste-setup")
            b.wait(f"""const g = document.querySelector('#board .piece[data-at="{a}"]');
                return g && g.dataset.kind === arguments[0];""", "the pasted setup", 10, setup[a])
            log(f"{seat}: pasted a setup ({a} and {c} exchanged)")
        b.click("button#confirm")
        b.wait("return document.querySelector('#deploy').hidden", f"{seat}'s confirmation")
        _ = v0

    # -- one move through the page
    def move(self, b: Browser, rng: random.Random, prefer_air: bool = False, prefer_flip: bool = False) -> str | None:
        s = page_state(b)
        choices = s["from"] + s["flip"]
        if not choices:
            return None
        if prefer_flip and s["flip"]:
            choices = s["flip"]
        elif prefer_air:
            air = [p for p in s["from"] if p.endswith("^")]
            if air:
                choices = air
        start = rng.choice(choices)
        v = s["version"]
        self.click_point(b, start)
        if start in s["flip"] and start not in s["from"]:
            b.wait("return Number(document.querySelector('#board').dataset.version) > arguments[0]", "the flip", 10, v)
            self.moves += 1
            return f"flip {start}"
        targets = b.wait("""return Array.from(document.querySelectorAll('#board .pt.target')).map(e => e.dataset.point);""",
                         f"targets of {start}", 5)
        to = rng.choice(targets)
        self.click_point(b, to)
        b.wait("return Number(document.querySelector('#board').dataset.version) > arguments[0]", f"the move {start}-{to}", 10, v)
        self.moves += 1
        return f"{start}-{to}"

    def click_point(self, b: Browser, point: str) -> None:
        css = f'#board .pt[data-point="{point}"]'
        try:
            b.click(css)
        except WebDriverError as e:
            if e.error != "element click intercepted" or not point.endswith("^"):
                # A point a person could not click is a bug of the page.
                raise
            # Only an air position (`c7^`), whose target may lie under a piece drawn
            # over it, is clicked by script, and counted apart: it is no click through
            # the page.
            b.js("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}));", {ELEMENT: b.find(css)})
            self.script_clicks += 1
            return
        self.clicks += 1

    def resign(self, b: Browser, wait: bool = True) -> None:
        b.click("button#resign")
        try:
            b.accept_alert()
        except WebDriverError as e:
            if e.error != "no such alert":
                raise
        if wait:
            b.wait("return document.querySelector('#result').dataset.over === 'true'", "the result", 10)
        msg = page_state(b)["message"]
        check(not msg, f"resign: the page says {msg!r}")

    def wait_version(self, b: Browser, version: int) -> dict[str, Any]:
        b.wait("return Number(document.querySelector('#board').dataset.version) >= arguments[0]", f"version {version}", 10, version)
        return page_state(b)

    def checked(self, gid: str, b: Browser, seat: str, token: str, truth_tokens: dict[str, str] | None) -> None:
        """Compares the page's DOM with what the seat knows (its API view at the same
        version) and, with the other seats' tokens, with the truth."""
        for _ in range(20):
            html_text = b.html()
            v = page_state(b)["version"]
            mine = self.api(gid, token)
            truth = None
            versions = {mine["version"]}
            if truth_tokens:
                truth = {}
                for other, t in truth_tokens.items():
                    st = self.api(gid, t)
                    versions.add(st["version"])
                    truth.update(own_pieces(st))
            if versions == {v}:
                check_dom(f"{seat} v{v}", html_text, seat, view_known(mine, seat), truth)
                return
            time.sleep(0.05)
        CHECKS["skipped"] += 1

    def downloads(self, b: Browser, gid: str, token: str) -> dict[str, Any]:
        hrefs = b.js("""return [document.querySelector('#download-own').href,
            document.querySelector('#download-full').hidden ? '' : document.querySelector('#download-full').href];""")
        check(hrefs[0] and hrefs[1], f"download links after the end: {hrefs}")
        own = http("GET", hrefs[0])
        full = http("GET", hrefs[1])
        check(isinstance(full, dict) and isinstance(own, dict), "records are JSON objects")
        return full

    # -- classic, two humans
    def classic(self) -> None:
        log("classic: two browser sessions at 1920 x 1080, both seats through the page, a whole game")
        rng = random.Random(os.environ.get("WEB_TEST_SEED"))
        south_b = self.browser("south")
        # A whole game: classic with a low no-capture limit (a custom rule set pasted
        # into the lobby), so that random clicks end it in a few dozen plies.
        quick = json.dumps({"extends": "classic", "name": "classic-quick", "options": {"no_capture_draw_plies": 20}})
        links = self.lobby(south_b, "classic", {"south": "human", "north": "human"}, custom=quick)
        self.shot(south_b, "web-lobby.png")
        north_b = self.browser("north")
        for b in (south_b, north_b):
            b.cmd("POST", "/window/rect", {"width": 1920, "height": 1080})
        tokens = {s: urllib.parse.parse_qs(urllib.parse.urlsplit(links[s]).query)["token"][0] for s in ("south", "north")}
        gid = urllib.parse.urlsplit(links["south"]).path.rsplit("/", 1)[1]
        south_b.get(links["south"])
        north_b.get(links["north"])
        pages = {"south": south_b, "north": north_b}
        for seat, b in pages.items():
            self.deploy(b, seat, swap=True, paste=seat == "north")
        for b in pages.values():
            b.wait("return ['move', 'reaction'].includes(document.querySelector('#board').dataset.phase)", "play phase")
        for seat, b in pages.items():
            self.checked(gid, b, seat, tokens[seat], {o: t for o, t in tokens.items() if o != seat})
        # A spectator (a third session) sees no piece's kind.
        spec = self.browser("spectator")
        spec.get(links["spectate"])
        spec.wait("return ['move', 'reaction'].includes(document.querySelector('#board').dataset.phase)", "the spectator's board")
        check(spec.js("return document.querySelector('#seat').textContent") == "spectator", "spectator label")
        check_dom("spectator", spec.html(), "", {}, None)
        pieces, _ = dom_pieces(spec.html())
        check(pieces and not any(p["kind"] or p["text"].strip() for p in pieces), "spectator: a kind is shown")
        check(spec.js("return document.querySelector('#play-controls').hidden && document.querySelector('#download-own').hidden"),
              "spectator: no seat controls")
        spec.quit()
        self.browsers.remove(spec)
        # A draw offered through the page, seen and declined on the other page.
        south_b.click("button#offer-draw")
        north_b.wait("return !document.querySelector('#accept-draw').hidden", "the draw offer on North's page")
        check("south offers a draw" in north_b.js("return document.querySelector('#draw-offer').textContent"), "draw offer text")
        north_b.click("button#decline-draw")
        for b in pages.values():
            b.wait("return document.querySelector('#draw-offer').textContent === ''", "the declined offer")
        log("classic: spectator page checked; a draw offered by South and declined by North through the pages")
        # The learner's view, switched on by a click: every enemy piece South has not
        # seen (and only those) says how many kinds it can still be, its title which;
        # switched off again, the marks go (the DOM checks below read the labels).
        south_b.click("#learner")
        marks = south_b.wait("""const m = Array.from(document.querySelectorAll('#board .could-be'));
            return m.length ? m.map(t => [t.closest('.piece').className.baseVal, t.firstChild.textContent,
                                          t.querySelector('title').textContent]) : null;""",
                             "the learner's marks", 10)
        unknown = south_b.js("return document.querySelectorAll('#board .piece.unknown').length")
        check(len(marks) == unknown and all("unknown" in c for c, _, _ in marks),
              f"learner's view: {len(marks)} marks for {unknown} unknown pieces: {marks[:3]}")
        check(all(t.isdigit() or t.endswith("?") for _, t, _ in marks) and all(ti.startswith("could be: ") for _, _, ti in marks),
              f"learner's view marks: {marks[:3]}")
        # A piece that can still be several kinds also names its likeliest ones (by the
        # modelled beliefs), with their chances.
        check(all(re.search(r"; likeliest: \S+ \d+%", ti) for _, t, ti in marks if t.isdigit()),
              f"learner's view likeliest kinds: {marks[:3]}")
        south_b.click("#learner")
        south_b.wait("return document.querySelectorAll('#board .could-be').length === 0", "the marks gone", 10)
        log(f"classic: the learner's view marked {len(marks)} unknown pieces, e.g. {marks[0][1]!r} ({marks[0][2]})")
        plies = 0
        shot_taken = False
        while True:
            s = page_state(south_b)
            if s["over"]:
                break
            check(plies < 2 * WHOLE_GAME_MOVES, f"classic: the whole game did not end within {plies} plies")
            to_act = s["toAct"] or page_state(north_b)["toAct"]
            check(to_act in pages, f"classic: nobody to act: {s}")
            b = pages[to_act]
            state = b.wait("""const b = document.querySelector('#board');
                return document.querySelector('#turn').dataset.toAct === arguments[0] &&
                  document.querySelectorAll('#board .pt.from').length > 0""", f"{to_act}'s movable pieces", 10, to_act)
            _ = state
            if not shot_taken and plies >= 12 and self.shots:
                # A picture with a piece selected and its targets highlighted.
                st = page_state(b)
                self.click_point(b, rng.choice(st["from"]))
                b.wait("return document.querySelectorAll('#board .pt.target').length > 0", "targets", 5)
                self.shot(b, "web-classic.png")
                self.click_point(b, page_state(b)["selected"][0])
                shot_taken = True
            v = page_state(b)["version"]
            self.move(b, rng)
            plies += 1
            for seat, pb in pages.items():
                self.wait_version(pb, v + 1)
                self.checked(gid, pb, seat, tokens[seat], {o: t for o, t in tokens.items() if o != seat})
        for b in pages.values():
            b.wait("return document.querySelector('#result').dataset.over === 'true'", "the result on both pages")
        results = {seat: page_state(b)["result"] for seat, b in pages.items()}
        check(all(results.values()), f"classic: result shown: {results}")
        full = self.downloads(south_b, gid, tokens["south"])
        log(f"classic: {plies} plies through the page; result: {results['south']!r}; full record keys {sorted(full)}")
        for seat, b in pages.items():
            self.checked(gid, b, seat, tokens[seat], {o: t for o, t in tokens.items() if o != seat})
        for b in pages.values():
            b.quit()
        self.browsers.clear()

    # -- one human seat against random seats
    def versus_random(self, rules: str, seats: dict[str, str], moves: int, shot: str | None,
                      prefer_air: bool = False, prefer_flip: bool = False, custom: str | None = None,
                      seconds: int | None = None, desktop: bool = False) -> dict[str, Any]:
        """South plays through the page against server seats: `moves` moves then a
        resignation, or with `desktop` a whole game to its end (no resignation; at most
        `moves` moves) in a 1920 x 1080 window."""
        log(f"{rules}: South through the page against random seats" + (", a whole game at 1920 x 1080" if desktop else ""))
        rng = random.Random(os.environ.get("WEB_TEST_SEED"))
        b = self.browser(rules)
        if desktop:
            b.cmd("POST", "/window/rect", {"width": 1920, "height": 1080})
        links = self.lobby(b, rules, seats, custom=custom, seconds=seconds)
        token = urllib.parse.parse_qs(urllib.parse.urlsplit(links["south"]).query)["token"][0]
        gid = urllib.parse.urlsplit(links["south"]).path.rsplit("/", 1)[1]
        b.get(links["south"])
        b.wait("return document.querySelector('#board svg')", "the board")
        if desktop:
            # The board is the page's main element on a desktop: at least 60 % of the
            # viewport's smaller side.
            size = b.js("const r = document.querySelector('#board svg').getBoundingClientRect();"
                        " return [r.width, r.height, window.innerWidth, window.innerHeight];")
            check(max(size[0], size[1]) >= 0.6 * min(size[2], size[3]),
                  f"{rules}: the board {size[0]:.0f} x {size[1]:.0f} in a {size[2]} x {size[3]} viewport")
        if page_state(b)["phase"] == "deploy":
            self.deploy(b, "south", swap=rules == "siguo")
        first_html = None
        done = 0
        flips = 0
        air = 0
        end = time.monotonic() + (600 if desktop else 30)
        while True:
            s = b.wait("""const over = document.querySelector('#result').dataset.over === 'true';
                const mine = document.querySelector('#turn').dataset.toAct === 'south' &&
                  document.querySelectorAll('#board .pt.from, #board .pt.flip').length > 0;
                const out = ['move', 'reaction'].includes(document.querySelector('#board').dataset.phase) &&
                  document.querySelectorAll('#board .piece.own').length === 0 &&
                  document.querySelectorAll('#board .piece.facedown').length === 0;
                return (over || mine || out) ? {over, out} : null;""", "South's turn", 30)
            self.checked(gid, b, "south", token, None)
            if first_html is None:
                first_html = (b.html(), page_state(b)["version"])
                if seconds and not s["over"] and not s["out"]:
                    # The move clock counts down on the page.
                    left = b.wait("return Number(document.querySelector('#clock').dataset.left || 0)", "the clock", 5)
                    check(0 < left <= seconds, f"clock shows {left} s of {seconds}")
                    check("You have" in b.js("return document.querySelector('#clock').textContent"), "clock text")
                    log(f"{rules}: the clock shows {left} s left")
            if s["over"]:
                break
            if s["out"]:
                log(f"{rules}: South is out of the game after {done} moves; the others play on")
                break
            if desktop:
                check(done < moves and time.monotonic() < end,
                      f"{rules}: the whole game did not end within {moves} moves by South")
            elif done >= moves or time.monotonic() > end:
                log(f"{rules}: South resigns through the page after {done} moves")
                self.resign(b, wait=False)
                break
            if shot and done == min(4, moves // 2) and self.shots:
                self.shot(b, shot)
            m = self.move(b, rng, prefer_air=prefer_air, prefer_flip=prefer_flip and flips == 0)
            if m and m.startswith("flip"):
                flips += 1
            if m and "^" in m:
                air += 1
            done += 1
        # The random seats play on to the end (quickly: low no-capture limit in siguo).
        b.wait("return document.querySelector('#result').dataset.over === 'true'", "the end of the game", 45)
        self.checked(gid, b, "south", token, None)
        full = self.downloads(b, gid, token)
        log(f"{rules}: {done} moves by South through the page ({flips} flips, {air} plane moves); result {page_state(b)['result']!r}")
        b.quit()
        self.browsers.clear()
        return {"full": full, "first": first_html, "flips": flips, "air": air, "done": done}

    def siguo(self) -> None:
        # A whole game at desktop size: siguo with a low no-capture limit, pasted into
        # the lobby as a custom rule set, so that the game ends in a few dozen moves
        # (South plays until it is out or the game ends; the random seats play on).
        custom = json.dumps({"extends": "siguo", "name": "siguo-quick", "options": {"no_capture_draw_plies": 24}})
        out = self.versus_random("siguo", {"south": "human", "east": "random", "north": "random", "west": "random"},
                                 WHOLE_GAME_MOVES, "web-siguo.png", custom=custom, desktop=True)
        check(out["done"] > 0, "siguo: South moved through the page")
        # The truth of the first position South saw: the setups in the full record. No
        # piece of another side had moved yet... unless it moved before South's first
        # turn, so a piece is checked only where the record's setup puts it and the
        # page shows a piece of that owner.
        html_text, version = out["first"]
        truth = setups_truth(out["full"], "south")
        pieces, _ = dom_pieces(html_text)
        checked = 0
        for p in pieces:
            if p["owner"] in (None, "south") or p["at"] not in truth or truth[p["at"]][0] != p["owner"]:
                continue
            kind = truth[p["at"]][1]
            if p["kind"] or p["text"].strip():
                continue  # revealed to South (checked against its view above)
            check(kind.replace("_", " ") not in p["title"], f"siguo: {p['at']} title names {kind}")
            checked += 1
        check(checked > 0, "siguo: the first position was checked against the setups")
        log(f"siguo: {checked} enemy pieces of South's first position checked against the record's setups")

    def fanqi(self) -> None:
        # North is the engine's greedy bot (the lobby's "bot: greedy"), thinking off the
        # request path: South's page waits for its moves like a random seat's.
        # A whole game at desktop size, with a low no-capture limit (a custom rule set).
        custom = json.dumps({"extends": "fanqi", "name": "fanqi-quick", "options": {"no_capture_draw_plies": 20}})
        out = self.versus_random("fanqi", {"south": "human", "north": "greedy"}, WHOLE_GAME_MOVES, None, prefer_flip=True,
                                 seconds=120, custom=custom, desktop=True)
        check(out["flips"] >= 1, "fanqi: flipped a tile through the page")

    def sanjun(self) -> None:
        # A whole game at desktop size, planes moved by clicks whenever one can move.
        custom = json.dumps({"extends": "sanjun-modern", "name": "sanjun-quick", "options": {"no_capture_draw_plies": 20}})
        out = self.versus_random("sanjun-modern", {"south": "human", "north": "random"}, WHOLE_GAME_MOVES, None,
                                 prefer_air=True, custom=custom, desktop=True)
        check(out["air"] >= 1, "sanjun: a plane moved through the page")

    # -- sizes: the board is the page's main element from a phone to a desktop
    def sizes(self) -> None:
        """At 390, 1024, 1440 and 1920 px wide, for classic, siguo, fanqi and sanjun:
        the board at least 60 % of the window's smaller side, nothing wider than the
        window, the legend in the key; a move made by WebDriver's own clicks at each
        size (planes included in sanjun). The pictures of each size: `pictures`."""
        log("sizes: the board at phone and desktop sizes")
        rng = random.Random(os.environ.get("WEB_TEST_SEED"))
        b = self.browser("sizes")
        games = {}
        for rules, north in (("classic", "random"), ("siguo", None), ("fanqi", "random"), ("sanjun-modern", "random")):
            sides = ["south", "east", "north", "west"] if rules == "siguo" else ["south", "north"]
            seats = {side: ("human" if side == "south" else "random") for side in sides}
            r = http("POST", self.base + "/api/games", {"rules": rules, "seats": seats})
            gid, token = r["game"], r["seats"]["south"]["token"]
            if rules != "fanqi":
                http("POST", f"{self.base}/api/games/{gid}/confirm", None, token)
            games[rules] = (gid, token)
        for width, height in ((390, 844), (1024, 768), (1440, 900), (1920, 1080)):
            b.cmd("POST", "/window/rect", {"width": width, "height": height})
            for rules, (gid, token) in games.items():
                # South to act on the server, and the page showing that very version
                # (an update arriving between the two clicks would clear the choice).
                deadline = time.monotonic() + 30
                while True:
                    st = self.api(gid, token)
                    if st["to_act"] == "south" or st["phase"] == "over" or time.monotonic() > deadline:
                        break
                    time.sleep(0.05)
                check(st["to_act"] == "south", f"{rules}: south to act ({st['phase']})")
                b.get(f"{self.base}/play/{gid}?token={token}")
                # The page's own event stream marks the seat connected (a change of
                # the game): wait for that, then for the page to show the server's
                # latest version, before choosing (a later update clears a choice).
                b.wait("return document.querySelector('#seat-list li[data-side=\"south\"] .live')",
                       f"{rules}: the page connected", 15)
                st = self.api(gid, token)
                b.wait("return Number(document.querySelector('#board').dataset.version) === arguments[0]"
                       " && document.querySelectorAll('#board .pt.from, #board .pt.flip').length > 0",
                       f"{rules}: south to act at {width} px", 30, st["version"])
                m = b.js("""const r = document.querySelector('#board svg').getBoundingClientRect();
                    return {w: r.width, h: r.height, vw: window.innerWidth, vh: window.innerHeight,
                            scroll: document.documentElement.scrollWidth,
                            legendInBoard: !!document.querySelector('#board g.legend'),
                            key: !!document.querySelector('#key-picture svg g.legend')};""")
                smaller = min(m["vw"], m["vh"])
                check(max(m["w"], m["h"]) >= 0.6 * smaller,
                      f"{rules} at {width} px: the board is {m['w']:.0f}x{m['h']:.0f} in a {m['vw']}x{m['vh']} window")
                check(m["scroll"] <= m["vw"] + 1, f"{rules} at {width} px: the page is {m['scroll']} px wide")
                check(not m["legendInBoard"] and m["key"], f"{rules} at {width} px: the legend is in the key, not the board")
                made = self.move(b, rng, prefer_air=rules == "sanjun-modern", prefer_flip=rules == "fanqi")
                check(made is not None, f"{rules} at {width} px: no move to make")
                log(f"sizes: {rules} at {width}x{height}: board {m['w']:.0f}x{m['h']:.0f}, a move by clicks")
        b.quit()
        self.browsers.clear()

    # -- pictures: the page at each size, compared with docs/img
    def pictures(self) -> None:
        """The screenshots docs/img/web-390.png, -1024, -1440 and -1920: South's page of
        one fixed classic game (the setups and six moves below, made through the API),
        at 390 x 844, 1024 x 768, 1440 x 900 and 1920 x 1080, compared with the
        committed pictures within tests/render/compare.py's tolerance (anti-aliasing,
        not a changed page). With --screenshots DIR they are written there instead
        (look at them, then commit)."""
        log("pictures: the page at four sizes against docs/img")
        sys.path.insert(0, os.path.join(ROOT, "tests", "render"))
        import compare  # tests/render/compare.py: the pictures' tolerance, decided once

        r = http("POST", self.base + "/api/games", {"rules": "classic"})
        gid, tokens = r["game"], {s: r["seats"][s]["token"] for s in ("south", "north")}
        for side, setup in PICTURE_SETUPS.items():
            http("POST", f"{self.base}/api/games/{gid}/setup", {"setup": setup}, tokens[side])
            http("POST", f"{self.base}/api/games/{gid}/confirm", None, tokens[side])
        for i, notation in enumerate(PICTURE_MOVES):
            http("POST", f"{self.base}/api/games/{gid}/action", {"notation": notation}, tokens["south" if i % 2 == 0 else "north"])
        version = self.api(gid, tokens["south"])["version"]
        b = self.browser("pictures")
        out = tempfile.mkdtemp(prefix="junqi-web-pictures-")
        failed = []
        for width, height in ((390, 844), (1024, 768), (1440, 900), (1920, 1080)):
            b.cmd("POST", "/window/rect", {"width": width, "height": height})
            b.get(f"{self.base}/play/{gid}?token={tokens['south']}")
            b.wait("return document.querySelector('#seat-list li[data-side=\"south\"] .live') &&"
                   " Number(document.querySelector('#board').dataset.version) === arguments[0] &&"
                   " document.querySelectorAll('#board .pt.from').length > 0 && document.fonts.status === 'loaded'",
                   f"the page at {width} px", 15, version)
            name = f"web-{width}.png"
            if self.shots:
                self.shot(b, name)
                continue
            b.screenshot(os.path.join(out, name))
            why = compare.difference(Path(out) / name, Path(ROOT) / "docs" / "img" / name)
            if why:
                failed.append(f"{name}: {why}")
        b.quit()
        self.browsers.clear()
        check(not failed, "the page differs from docs/img: " + "; ".join(failed) + f" (new pictures in {out}; if the "
              "page changed on purpose, look at them, run tests/web/run.sh --screenshots and commit docs/img)")
        log("pictures: " + ("written" if self.shots else "the four sizes match docs/img"))

    # -- chinese: every string of the page in Chinese
    def chinese(self) -> None:
        """The lobby and a game page in Chinese (chosen with the page's language
        button): no English word is left — the log, the result and the replay's texts
        included (the server tells them in Chinese) — outside the board the server draws
        and the names of rule sets and players; the button switches back to English."""
        log("chinese: the lobby and a whole game in Chinese on a phone (390 x 844)")
        rng = random.Random(os.environ.get("WEB_TEST_SEED"))
        b = self.browser("chinese")
        b.cmd("POST", "/window/rect", {"width": 390, "height": 844})
        b.get(self.base + "/")
        b.wait("return document.querySelectorAll('#preset option').length > 0", "presets")
        b.click("button#lang")
        b.wait("return document.documentElement.lang === 'zh-CN' && document.querySelectorAll('#preset option').length > 0",
               "the page in Chinese", 10)
        presets = list(http("GET", self.base + "/api/presets")["presets"])
        allowed = set(presets) | {"classic-quick", "junqi", "Elo", "JSON", "Home", "End", "English"}
        english = """const skip = arguments[0];
            const out = [];
            const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
            for (let n = w.nextNode(); n; n = w.nextNode()) {
              const e = n.parentElement;
              if (!e || e.closest('#board, textarea, script, style, #me-link, #new-game-id, #link-list')) continue;
              if (!e.checkVisibility || !e.checkVisibility()) continue;
              const words = (n.nodeValue.match(/[A-Za-z][A-Za-z'-]{2,}/g) || []).filter((x) => !skip.includes(x));
              if (words.length) out.push(n.nodeValue.trim());
            }
            for (const e of document.querySelectorAll('[placeholder], [title], [aria-label]')) {
              if (e.closest('#board, #key-picture') || (e.checkVisibility && !e.checkVisibility())) continue;
              for (const a of ['placeholder', 'title', 'aria-label']) {
                const v = e.getAttribute(a);
                if (v && (v.match(/[A-Za-z][A-Za-z'-]{2,}/g) || []).some((x) => !skip.includes(x)) && !v.startsWith('{')) out.push(a + '=' + v);
              }
            }
            return out;"""
        left = b.js(english, sorted(allowed))
        check(not left, f"chinese: English left on the lobby: {left}")
        # A game page: South to act; a whole quick game (no-capture limit 20) played by
        # clicks against the random player; then the end and its replay.
        quick = {"extends": "classic", "name": "classic-quick", "options": {"no_capture_draw_plies": 20}}
        r = http("POST", self.base + "/api/games", {"rules": quick, "seats": {"south": "human", "north": "random"}})
        gid, token = r["game"], r["seats"]["south"]["token"]
        http("POST", f"{self.base}/api/games/{gid}/confirm", None, token)
        b.get(f"{self.base}/play/{gid}?token={token}")
        b.wait("return document.querySelectorAll('#board .pt.from').length > 0", "south to act", 15)
        left = b.js(english, sorted(allowed))
        check(not left, f"chinese: English left on the game page: {left}")
        check("轮到你" in b.js("return document.querySelector('#turn').textContent"), "chinese: whose turn, in Chinese")
        moves = 0
        while True:
            s = b.wait("""const over = document.querySelector('#result').dataset.over === 'true';
                const mine = document.querySelector('#turn').dataset.toAct === 'south' &&
                  document.querySelectorAll('#board .pt.from').length > 0;
                return (over || mine) ? {over} : null;""", "South's turn or the end", 30)
            if s["over"]:
                break
            check(moves < WHOLE_GAME_MOVES, f"chinese: the whole game did not end within {moves} moves")
            self.move(b, rng)
            moves += 1
        result = b.js("return document.querySelector('#result').textContent")
        b.wait("return document.querySelector('#board').dataset.replayStep", "the replay", 15)
        check(any(w in result for w in ("你赢了", "你输了", "和棋")), f"chinese: the result {result!r}")
        b.click("#replay-back")
        b.wait("const s = document.querySelector('#replay-step'); return document.querySelector('#board').dataset.replayStep"
               " === String(Number(s.max) - 1)", "a step back in the replay", 10)
        log(f"chinese: {moves} moves by clicks on a phone to the end: {result!r}")
        left = b.js(english, sorted(allowed))
        check(not left, f"chinese: English left on the finished game: {left}")
        # Back to English.
        b.click("button#lang")
        b.wait("return document.documentElement.lang === 'en' && document.querySelector('#turn').textContent === 'Game over'",
               "the page in English again", 10)
        log("chinese: the lobby, a game and its replay in Chinese, then English again")
        b.quit()
        self.browsers.clear()

    # -- players: names, the lobby, pairing, the computer, clocks, ratings, rematch
    def name(self, b: Browser, name: str) -> dict[str, str]:
        """Opens the lobby and plays under `name` (made through the page, kept by the browser)."""
        b.get(self.base + "/")
        b.wait("return document.querySelectorAll('#preset option').length > 0", "presets")
        b.type("#player-name", name)
        b.click("button#set-name")
        b.wait("return !document.querySelector('#me').hidden", f"{name}'s name")
        check(b.js("return document.querySelector('#me-name').textContent") == name, "the name shown")
        return json.loads(b.js("return localStorage.getItem('junqi-player')"))

    def seat_of_page(self, b: Browser, leaving: str | None = None) -> tuple[str, str, str]:
        """The game id, seat token and seat of the page a browser is on (or is going to:
        a waiting player's page moves to the game once paired). With `leaving`, the id
        of a game whose page the browser is leaving (a rematch), it waits for another
        game's page: the old page is a seat's page too until the browser moves on."""
        b.wait("return location.pathname.startsWith('/play/') && new URLSearchParams(location.search).has('token')"
               " && location.pathname !== '/play/' + arguments[0]",
               "a seat's page", 15, leaving or "")
        url = urllib.parse.urlsplit(b.js("return location.href"))
        token = urllib.parse.parse_qs(url.query)["token"][0]
        gid = url.path.rsplit("/", 1)[1]
        b.wait("return document.querySelector('#board svg') && document.querySelector('#board').dataset.seat", "the seat's board")
        return gid, token, page_state(b)["seat"]

    def check_lobby(self, b: Browser, secrets: list[str]) -> None:
        """The lobby (lists, ratings) holds no token, no player secret, no piece."""
        html_text = b.html()
        for secret in secrets:
            check(secret not in html_text, "the lobby shows a secret")
        pieces, _ = dom_pieces(html_text)
        check(not pieces and "data-kind" not in html_text, "the lobby shows a piece")
        CHECKS["dom"] += 1

    def fresh_banks(self, b: Browser) -> tuple[int, int, int]:
        """South's and North's banks as the page shows them after running its clock
        ticker now, and the page's clock (ms) at that moment."""
        got = b.js("tickClock(); const ms = s => Number(document.querySelector("
                   "'#seat-list .bank[data-side=\"' + s + '\"]').dataset.ms || '-1');"
                   "return [ms('south'), ms('north'), Date.now()];")
        return (int(got[0]), int(got[1]), int(got[2]))

    def bank(self, b: Browser, side: str) -> int:
        return int(b.js("return document.querySelector('#seat-list .bank[data-side=\"' + arguments[0] + '\"]').dataset.ms || '-1'", side))

    def players(self) -> None:
        log("players: names, the lobby and a game clock")
        rng = random.Random(os.environ.get("WEB_TEST_SEED"))
        ann_b, ben_b = self.browser("ann"), self.browser("ben")
        ann = self.name(ann_b, "ann")
        ben = self.name(ben_b, "ben")
        # Ann's name moves to another browser by its sign-in link (opened by a click
        # on its summary, read from the page); a made-up link is refused in words.
        ann_b.click("#move-me summary")
        link = ann_b.js("return document.querySelector('#me-link').value")
        check(link.endswith("/#player=" + urllib.parse.quote(ann["token"], safe="")), f"the sign-in link {link!r}")
        other = self.browser("ann-elsewhere")
        other.get(link)
        other.wait("return !document.querySelector('#me').hidden && document.querySelector('#me-name').textContent === 'ann'",
                   "ann signed in by her link", 10)
        check(other.js("return location.hash") == "", "the link leaves the address bar")
        check(json.loads(other.js("return localStorage.getItem('junqi-player')"))["token"] == ann["token"], "the token kept")
        other.get(self.base + "/#player=" + urllib.parse.quote(ann["token"][:-2] + "xx", safe=""))
        other.wait("return document.querySelector('#player-error').textContent.includes('no player')",
                   "a made-up link refused", 10)
        other.quit()
        self.browsers.remove(other)
        log("players: ann's name moved to another browser by its sign-in link")
        # Ann lists a rated game with a game clock (5 min + 3 s) and takes its first seat.
        ann_b.type("#game-minutes", "5")
        ann_b.type("#increment-seconds", "3")
        ann_b.js("document.querySelector('#listed').checked = true; document.querySelector('#rated').checked = true;")
        ann_b.click("button#create")
        gid, ann_t, ann_seat = self.seat_of_page(ann_b)
        check(ann_seat == "south", f"ann's seat {ann_seat}")
        # Ben finds it among the open games and joins.
        ben_b.wait("return document.querySelector('#open-list tr[data-game=\"' + arguments[0] + '\"]')", "the open game", 10, gid)
        self.check_lobby(ben_b, [ann_t, ann["token"], ben["token"]])
        row = ben_b.js("return document.querySelector('#open-list tr[data-game=\"' + arguments[0] + '\"]').textContent", gid)
        check("ann" in row and "(free)" in row and "5 min + 3 s" in row, f"the lobby's entry: {row!r}")
        ben_b.click(f'#open-list tr[data-game="{gid}"] button.join')
        gid2, ben_t, ben_seat = self.seat_of_page(ben_b)
        check(gid2 == gid and ben_seat == "north", f"ben joined {gid2} as {ben_seat}")
        pages = {"south": (ann_b, ann_t), "north": (ben_b, ben_t)}
        for seat, (b, t) in pages.items():
            b.wait("return document.querySelector('#seat-list').textContent.includes('ben')", "the names on the page")
            names = b.js("return document.querySelector('#seat-list').textContent")
            check("ann" in names and "ben" in names, f"{seat}: seats {names!r}")
            self.deploy(b, seat, swap=False)
        for seat, (b, t) in pages.items():
            b.wait("return ['move', 'reaction'].includes(document.querySelector('#board').dataset.phase)", "play phase")
            self.checked(gid, b, seat, t, {o: x[1] for o, x in pages.items() if o != seat})
        # The game clock runs for the seat to act and stands for the other; a move earns
        # the increment.
        # Each reading is the page's own, fresh (its ticker run in the same script as
        # the page's clock is read): South's bank falls by exactly the time that passed
        # on the page's clock, whatever the machine's load; North's stands.
        (b0, n0, t0) = self.fresh_banks(ann_b)
        time.sleep(1.2)
        (b1, n1, t1) = self.fresh_banks(ann_b)
        check(t1 - t0 >= 1200 and abs((b0 - b1) - (t1 - t0)) <= 2 and n1 == n0 == 300000,
              f"south's clock runs ({b0} -> {b1} in {t1 - t0} ms), north's stands ({n0} -> {n1})")
        v = page_state(ann_b)["version"]
        ann_b.wait("return document.querySelectorAll('#board .pt.from').length > 0", "south's movable pieces")
        self.move(ann_b, rng)
        self.wait_version(ann_b, v + 1)
        after = self.bank(ann_b, "south")
        check(after > b1 + 2000, f"the increment: {b1} -> {after}")
        log(f"players: ann's clock ran {b0 - b1} ms in {t1 - t0} ms and earned the increment ({after} ms after her move)")
        for seat, (b, t) in pages.items():
            self.wait_version(b, v + 1)
            self.checked(gid, b, seat, t, {o: x[1] for o, x in pages.items() if o != seat})
        for b in (ann_b, ben_b):
            b.quit()
        self.browsers.clear()

        log("players: quick pairing")
        cara_b, dan_b = self.browser("cara"), self.browser("dan")
        cara = self.name(cara_b, "cara")
        dan = self.name(dan_b, "dan")
        cara_b.click("button#pair")
        cara_b.wait("return !document.querySelector('#pair-waiting').hidden", "cara waits")
        dan_b.click("button#pair")
        gc, cara_t, cara_seat = self.seat_of_page(cara_b)
        gd, dan_t, dan_seat = self.seat_of_page(dan_b)
        check(gc == gd and {cara_seat, dan_seat} == {"south", "north"}, f"paired: {gc} {cara_seat} / {gd} {dan_seat}")
        # On a phone-sized window the page fits its width.
        dan_b.cmd("POST", "/window/rect", {"width": 390, "height": 844})
        dan_b.wait("return document.documentElement.scrollWidth <= window.innerWidth + 1", "the page within a phone's width")
        width = dan_b.js("return document.querySelector('#board svg').getBoundingClientRect().width")
        check(0 < width <= 390, f"the board on a phone: {width}px")
        self.shot(dan_b, "web-phone.png")
        tokens = {cara_seat: cara_t, dan_seat: dan_t}
        for seat, b in ((cara_seat, cara_b), (dan_seat, dan_b)):
            self.checked(gc, b, seat, tokens[seat], {o: t for o, t in tokens.items() if o != seat})
        lobby_b = self.browser("watcher")
        lobby_b.get(self.base + "/")
        lobby_b.wait("return document.querySelector('#watch-list tr[data-game=\"' + arguments[0] + '\"]')", "the paired game to watch", 10, gc)
        self.check_lobby(lobby_b, [cara_t, dan_t, cara["token"], dan["token"], ann_t, ben_t])
        for b in (cara_b, dan_b, lobby_b):
            b.quit()
        self.browsers.clear()

        log("players: a game against the computer to the end, its rating change, a rematch")
        eve_b = self.browser("eve")
        eve = self.name(eve_b, "eve")
        eve_b.js("document.querySelector('#computer-level').value = 'greedy';")
        eve_b.click("button#play-computer")
        ge, eve_t, eve_seat = self.seat_of_page(eve_b)
        self.deploy(eve_b, eve_seat, swap=False)
        moves = 0
        while True:
            s = eve_b.wait("""const over = document.querySelector('#result').dataset.over === 'true';
                const mine = document.querySelector('#turn').dataset.toAct === arguments[0] &&
                  document.querySelectorAll('#board .pt.from').length > 0;
                return (over || mine) ? {over} : null;""", "eve's turn or the end", 20, eve_seat)
            if s["over"]:
                break
            check(moves < 400, "the game against the greedy bot does not end")
            if moves % 10 == 0:
                self.checked(ge, eve_b, eve_seat, eve_t, None)
            self.move(eve_b, rng)
            moves += 1
        result = page_state(eve_b)["result"]
        line = eve_b.wait("""const l = document.querySelector('#rating-change .rating-line[data-side="' + arguments[0] + '"]');
            return l && l.textContent;""", "eve's rating change", 10, eve_seat)
        check(line.startswith("Your rating: 1500 → "), f"the rating change: {line!r}")
        self.checked(ge, eve_b, eve_seat, eve_t, None)
        self.shot(eve_b, "web-rated.png")
        log(f"players: eve played {moves} moves against the greedy bot: {result!r}; {line!r}")
        # The finished game opens as a replay at its end, every piece shown; back by a
        # click, forward by the arrow key, the start by a click, eve's own view by a click.
        steps = eve_b.wait("const b = document.querySelector('#board'); const s = document.querySelector('#replay-step');"
                           " return b.dataset.replayStep && b.dataset.replayStep === s.max ? Number(s.max) : null;",
                           "the replay at the end", 10)
        check(eve_b.js("return document.querySelectorAll('#board .piece.unknown').length") == 0,
              "the end of the game shows every piece")
        at = lambda: int(eve_b.js("return document.querySelector('#board').dataset.replayStep"))  # noqa: E731
        eve_b.click("#replay-back")
        eve_b.wait("return document.querySelector('#board').dataset.replayStep === String(arguments[0])", "one step back", 10, steps - 1)
        eve_b.cmd("POST", "/actions", {"actions": [{"type": "key", "id": "keys", "actions": [
            {"type": "keyDown", "value": "\ue014"}, {"type": "keyUp", "value": "\ue014"}]}]})  # the right arrow
        eve_b.wait("return document.querySelector('#board').dataset.replayStep === String(arguments[0])", "forward by the key", 10, steps)
        eve_b.click("#replay-start")
        eve_b.wait("return document.querySelector('#board').dataset.replayStep === '0'", "the start", 10)
        eve_b.click("#replay-forward")
        eve_b.click("#replay-forward")
        eve_b.click("#replay-forward")
        eve_b.wait("return document.querySelector('#board').dataset.replayStep === '3'", "three steps in", 10)
        eve_b.click("#replay-mine")
        eve_b.wait("return document.querySelectorAll('#board .piece.unknown').length > 0", "eve's own view of step 3", 10)
        log(f"players: the replay of {steps} steps: end, back, forward by the arrow key, start, eve's own view ({at()})")
        # The ratings list of the lobby now has eve against the computer.
        eve_b.click("button#rematch")
        gr, eve_t2, seat2 = self.seat_of_page(eve_b, leaving=ge)
        check(gr != ge and seat2 != eve_seat, f"the rematch: {gr} as {seat2} (was {ge} as {eve_seat})")
        eve_b.get(self.base + "/")
        eve_b.wait("return document.querySelector('#board-bots').textContent.includes('eve')", "eve in the ratings")
        # Her finished game is listed (the rematch, not over, is not), with the result
        # from her seat, and a click on "open" opens it again as the replay at its end.
        # Her own seat's token is in that link (her browser, her seat); nothing else is.
        row_css = f'#my-games-list tr[data-game="{ge}"]'
        row = eve_b.wait("const r = document.querySelector(arguments[0]); return r && r.textContent;",
                         "eve's finished game listed", 10, row_css)
        listed = http("GET", self.base + "/api/players/me/games", token=eve["token"])["games"]
        check([g["id"] for g in listed] == [ge], f"eve's finished games: {listed}")
        check(listed[0]["text"] in row and ("you win" in row or "you lose" in row or "draw" in row), f"the listed game: {row!r}")
        check(eve_b.js("return document.querySelectorAll('#my-games-list tr').length") == 1, "only the finished game")
        href = eve_b.js("return document.querySelector(arguments[0] + ' a.reopen').getAttribute('href')", row_css)
        check(href == f"/play/{ge}?token={eve_t}", f"the link to open it: {href}")
        self.check_lobby(eve_b, [eve_t2, eve["token"]])
        eve_b.click(row_css + " a.reopen")
        gid_again, _, seat_again = self.seat_of_page(eve_b)
        check((gid_again, seat_again) == (ge, eve_seat), f"opened {gid_again} as {seat_again}")
        eve_b.wait("const b = document.querySelector('#board'); const s = document.querySelector('#replay-step');"
                   " return b.dataset.replayStep && b.dataset.replayStep === s.max;", "the reopened game's replay", 10)
        log(f"players: eve's finished games list {ge} ({row!r}); open reopens its replay")
        eve_b.quit()
        self.browsers.clear()


def setups_truth(full: dict[str, Any], seat: str) -> dict[str, tuple[str, str]]:
    """Point -> (owner, kind) of the other sides' setups in a full record."""
    out: dict[str, tuple[str, str]] = {}
    rec = full.get("record", full) if isinstance(full.get("record"), dict) else full
    entries = rec.get("actions") or []
    for e in entries:
        if isinstance(e, dict) and "deploy" in e and e["deploy"] != seat:
            setup = e["setup"]
            placements = setup.get("placements", setup) if isinstance(setup, dict) else {}
            if isinstance(placements, dict):
                for point, kind in placements.items():
                    out[point] = (e["deploy"], kind)
            elif isinstance(placements, list):
                for item in placements:
                    if isinstance(item, dict):
                        out[item.get("point")] = (e["deploy"], item.get("kind"))
                    elif isinstance(item, (list, tuple)) and len(item) == 2:
                        out[item[0]] = (e["deploy"], item[1])
    return out


# ------------------------------------------------------------------ processes


def static_proxy(static_dir: str, upstream: str) -> str:
    """For working on the page without rebuilding the server (`--static web/static`):
    serves the page's files from disk and passes everything else (the API, the event
    stream) to the server. Normal runs test the files compiled into the binary."""
    import http.server
    import threading

    files = {"/app.js": ("app.js", "text/javascript"), "/app.css": ("app.css", "text/css")}

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a: Any) -> None:
            pass

        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            if path in files or path == "/" or path.startswith("/play/"):
                name, ctype = files.get(path, ("index.html", "text/html"))
                with open(os.path.join(static_dir, name), "rb") as f:
                    body = f.read()
                self.send_response(200)
                self.send_header("Content-Type", ctype + "; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            self.relay("GET")

        def do_POST(self) -> None:
            self.relay("POST")

        def relay(self, method: str) -> None:
            n = int(self.headers.get("Content-Length") or 0)
            data = self.rfile.read(n) if n else (b"" if method == "POST" else None)
            req = urllib.request.Request(upstream + self.path, data=data, method=method)
            for h in ("Authorization", "Content-Type", "Accept"):
                if self.headers.get(h):
                    req.add_header(h, self.headers[h])
            try:
                res = urllib.request.urlopen(req, timeout=300)
            except urllib.error.HTTPError as e:
                res = e
            self.send_response(res.status)
            for k, v in res.headers.items():
                if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                    self.send_header(k, v)
            self.send_header("Connection", "close")
            self.end_headers()
            try:
                while True:
                    chunk = res.read1(65536) if hasattr(res, "read1") else res.read(65536)
                    if not chunk:
                        break
                    self.wfile.write(chunk)
                    self.wfile.flush()
            except OSError:
                pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    srv.handle_error = lambda *a: None  # type: ignore[method-assign]  (dropped event streams)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{srv.server_address[1]}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(binary: str, tmp: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [binary, "--port", "0", "--db", os.path.join(tmp, "web.sqlite"), "--bot-delay-ms", "20"],
        stdout=subprocess.PIPE, stderr=open(os.path.join(tmp, "server.err"), "w"), text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    check(line.startswith("listening on http://"), f"server's first line: {line!r}")
    return proc, line.split("listening on ", 1)[1]


def start_chromedriver(binary: str, tmp: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen([binary, f"--port={port}"], stdout=open(os.path.join(tmp, "chromedriver.log"), "w"),
                            stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    end = time.monotonic() + 15
    while time.monotonic() < end:
        try:
            with urllib.request.urlopen(url + "/status", timeout=2) as res:
                if json.loads(res.read())["value"].get("ready"):
                    return proc, url
        except (OSError, ValueError):
            pass
        time.sleep(0.1)
    raise Failure("chromedriver did not start")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--server", required=True, help="the junqi-web binary")
    ap.add_argument("--chromedriver", default=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    ap.add_argument("--screenshots", metavar="DIR", help="save web-lobby/classic/siguo.png there")
    ap.add_argument("--only", nargs="*", default=["pictures", "sizes", "chinese", "classic", "siguo", "fanqi", "sanjun", "players"])
    ap.add_argument("--static", metavar="DIR", help="serve the page from DIR (working on the page)")
    args = ap.parse_args()
    t0 = time.monotonic()
    tmp = tempfile.mkdtemp(prefix="junqi-web-test-")
    server = driver = None
    run = None
    try:
        server, base = start_server(args.server, tmp)
        if args.static:
            base = static_proxy(args.static, base)
        log(f"server at {base}")
        driver, durl = start_chromedriver(args.chromedriver, tmp)
        run = Run(base, durl, args.chromium, args.screenshots)
        for name in args.only:
            getattr(run, name)()
        log(f"{run.moves} moves and {run.clicks} board clicks through the page ({run.script_clicks} more by "
            f"script, on air positions under a piece); DOM checks {CHECKS['dom']} "
            f"(against the truth {CHECKS['truth']}, skipped while the game moved {CHECKS['skipped']}); "
            f"{time.monotonic() - t0:.1f} s")
        return 0
    except (Failure, WebDriverError) as e:
        print(f"FAILED: {e}", file=sys.stderr)
        for b in run.browsers if run else []:
            try:
                path = os.path.join(tmp, f"failure-{b.name}.png")
                b.screenshot(path)
                with open(os.path.join(tmp, f"failure-{b.name}.html"), "w") as f:
                    f.write(b.html())
            except Exception:
                pass
        print(f"(server log, screenshots and DOM in {tmp})", file=sys.stderr)
        return 1
    finally:
        for b in run.browsers if run else []:
            b.quit()
        for p in (driver, server):
            if p is not None:
                p.terminate()
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    p.kill()


if __name__ == "__main__":
    sys.exit(main())
