#!/usr/bin/env python3
"""The offline page (wasm/demo) in headless Chromium over WebDriver, to the end of a game.

Reuses the WebDriver client of tests/web/driver.py (Browser, start_chromedriver). Serves
wasm/ from a tiny static file server on 127.0.0.1 (ES modules and fetch() of the .wasm
do not work from file:// URLs), opens the page for a classic game against the engine's
greedy player, plays a few moves by clicking the board's hit targets (a piece, then one
of its highlighted targets), checking each time that the page's SVG shows no enemy
kind the seat was not told of, then lets the engine play the seat too (the page's
"let the engine play my seat" box) and waits for the result.

  python3 tests/wasm/page.py [--moves N] [--screenshot docs/img/js-demo.png]
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import random
import shutil
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "web"))
from driver import Browser, Failure, WebDriverError, start_chromedriver  # noqa: E402

STATE = """
const b = document.querySelector('#board');
const pts = (c) => Array.from(b.querySelectorAll('.pt.' + c)).map(e => e.dataset.point);
const r = document.querySelector('#result');
return {
  ready: document.body.dataset.ready === 'true',
  phase: b.dataset.phase, ply: Number(b.dataset.ply), seat: b.dataset.seat,
  toAct: document.querySelector('#turn').dataset.toAct,
  over: r.dataset.over === 'true', result: r.textContent,
  message: document.querySelector('#message').textContent,
  from: pts('from'), target: pts('target'),
  shown: Array.from(b.querySelectorAll('g.piece[data-kind]'))
    .filter(g => g.dataset.owner && g.dataset.owner !== b.dataset.seat).length,
  told: Array.from(document.querySelectorAll('#log div')).filter(d => d.textContent.startsWith('revealed')).length,
};
"""


def log(msg: str) -> None:
    print(f"-- wasm page: {msg}", flush=True)


class Quiet(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".wasm": "application/wasm",
                      ".js": "text/javascript", ".mjs": "text/javascript"}

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chromedriver", default=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    ap.add_argument("--moves", type=int, default=6, help="moves played by clicks before the engine takes over")
    ap.add_argument("--screenshot", metavar="PNG", help="save the page after the moves by clicks (docs/img/js-demo.png)")
    args = ap.parse_args()
    handler = functools.partial(Quiet, directory=os.path.join(ROOT, "wasm"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    tmp = tempfile.mkdtemp(prefix="junqi-wasm-page-")
    driver = None
    b = None
    try:
        driver, durl = start_chromedriver(args.chromedriver, tmp)
        b = Browser(durl, args.chromium, "page")
        b.get(f"{base}/demo/index.html?rules=classic&opponent=greedy&seed=11")
        s = b.wait(STATE.replace("return {", "const s = {") + "return s.ready && s.seat ? s : null;", "the page", 30)
        log(f"loaded: {s['phase']}, {s['seat']} to play, {len(s['from'])} pieces may move")
        if s["shown"] != 0:
            raise Failure(f"the page shows {s['shown']} enemy kinds before any combat")
        rng = random.Random(5)
        clicks = script_clicks = 0
        while clicks < args.moves:
            s = b.wait(STATE.replace("return {", "const s = {") + "return (s.over || s.toAct === s.seat) ? s : null;",
                       "the seat's turn", 30)
            if s["over"]:
                break
            if s["shown"] > s["told"]:
                raise Failure(f"ply {s['ply']}: {s['shown']} enemy kinds shown, {s['told']} revealed")
            frm = rng.choice(s["from"])
            b.click(f'#board .pt[data-point="{frm}"]')
            s = b.js(STATE)
            if not s["target"]:
                raise Failure(f"no target highlighted after clicking {frm}")
            to = rng.choice(s["target"])
            ply = s["ply"]
            try:
                b.click(f'#board .pt[data-point="{to}"]')
            except WebDriverError as e:
                # Only an air position (`c7^`), whose target may lie under a piece drawn
                # over it, is clicked by script, and counted apart; any other point a
                # person could not click is a bug of the page.
                if e.error != "element click intercepted" or not to.endswith("^"):
                    raise
                b.js("document.querySelector(arguments[0]).dispatchEvent(new MouseEvent('click', {bubbles: true}));",
                     f'#board .pt[data-point="{to}"]')
                script_clicks += 1
            b.wait(f"return Number(document.querySelector('#board').dataset.ply) > {ply};", f"{frm}-{to} played", 15)
            clicks += 1
        log(f"{clicks} moves by clicks ({script_clicks} of them on an air position by script); "
            "the engine plays the seat to the end")
        if args.screenshot:
            b.wait(STATE.replace("return {", "const s = {") + "return (s.over || s.toAct === s.seat) ? s : null;",
                   "the seat's turn", 30)
            b.screenshot(args.screenshot)
        if not b.js(STATE)["over"]:
            b.click("#auto")
        s = b.wait(STATE.replace("return {", "const s = {") + "return s.over ? s : null;", "the end of the game", 90)
        if s["message"]:
            raise Failure(f"the page reported an error: {s['message']}")
        if not s["result"]:
            raise Failure("no result shown")
        log(f"over after {s['ply']} plies: {s['result']}")
        return 0
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
        return 1
    finally:
        if b is not None:
            b.quit()
        if driver is not None:
            driver.terminate()
            driver.wait(timeout=10)
        server.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    start = time.monotonic()
    rc = main()
    log(f"{time.monotonic() - start:.1f} s")
    sys.exit(rc)
