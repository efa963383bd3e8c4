#!/usr/bin/env python3
"""The page's own CJK font (issue #44): piece labels have real glyphs in a browser that
has no CJK font at all.

Headless Chromium runs under a fontconfig configuration of its own (FONTCONFIG_FILE in
chromedriver's environment, which Chromium inherits) that knows only the DejaVu (or
Liberation) fonts, so every CJK character the page does not bring itself is drawn as
an empty box ("tofu"); `fc-list` confirms that no font under it covers Chinese. A
classic game's seat page is opened (South deployed at random, North a random seat) and
the test checks, in the page:

  font      both faces of "Junqi CJK" (Regular, Bold) are loaded from /fonts/, and
            document.fonts.check('16px "Junqi CJK"', '军') is true;
  stack     the board's label text is set in "Junqi CJK" first (fonts.css over the
            SVG's own font-family attribute);
  widths    every CJK label of the board (the pieces' names, 大本营) measures one em a
            character (getComputedTextLength), while a character the page has no font
            for (龘, the tofu box) measures otherwise; the title 军棋 likewise;
  pixels    the label characters drawn on a canvas in the page's font give pairwise
            different pictures, none of them the tofu box (boxes are all alike).

Before the browser, without it: every CJK character the page's sources hold (as
scripts/build-web-font collects them) is in the unicode-range fonts.css declares, which
the script writes from the subset it builds: a Chinese string added without rebuilding
the font fails here.

Every check is made and the failures are listed together. Reuses tests/web/driver.py's
WebDriver client and its server and chromedriver start. `--static DIR` serves the page's
files from DIR (driver.py's static proxy): with a copy of web/static whose index.html
lacks the fonts.css link the test fails.

  python3 tests/web/fonts.py --server target/citest/junqi-web [--static DIR] [--screenshot PNG]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver as wd  # noqa: E402  (tests/web/driver.py)

FONT_DIRS = [
    "/usr/share/fonts/truetype/dejavu",
    "/usr/share/fonts/truetype/liberation",
    "/usr/share/fonts/truetype/liberation2",
]
TOFU = "龘"  # U+9F98: in no font of the test's configuration, nor in the page's subset

FONTS_CONF = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <dir>{dir}</dir>
  <cachedir>{cache}</cachedir>
</fontconfig>
"""


def no_cjk_fontconfig(tmp: str) -> str:
    """Writes a fonts.conf that knows one Latin font folder and no CJK font; checks it
    with fc-list. Returns its path."""
    folder = next((d for d in FONT_DIRS if os.path.isdir(d)), None)
    wd.check(folder is not None, f"no Latin font folder for the test: none of {FONT_DIRS} "
                                 "(apt-get install fonts-dejavu-core)")
    path = os.path.join(tmp, "fonts.conf")
    with open(path, "w") as f:
        f.write(FONTS_CONF.format(dir=folder, cache=os.path.join(tmp, "fc-cache")))
    env = dict(os.environ, FONTCONFIG_FILE=path)
    if shutil.which("fc-list"):
        fonts = subprocess.run(["fc-list", ":", "family"], env=env, capture_output=True, text=True).stdout.split("\n")
        zh = subprocess.run(["fc-list", ":lang=zh"], env=env, capture_output=True, text=True).stdout.strip()
        jun = subprocess.run(["fc-list", ":charset=519b"], env=env, capture_output=True, text=True).stdout.strip()
        wd.check(any(fonts), f"fc-list finds no font at all under {path}")
        wd.check(not zh and not jun, f"the test's fontconfig still has a CJK font: {zh or jun}")
        wd.log(f"fontconfig: {len([x for x in fonts if x])} fonts from {folder}, none for :lang=zh or 军")
    else:
        wd.log("fc-list is missing (Debian's fontconfig): the configuration is checked in the page only")
    return path


def font_covers_sources() -> None:
    """The subset (fonts.css's unicode-range) holds every CJK character of the sources."""
    import importlib.machinery
    import importlib.util
    import re

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    loader = importlib.machinery.SourceFileLoader("build_web_font", os.path.join(root, "scripts", "build-web-font"))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    assert spec is not None
    build = importlib.util.module_from_spec(spec)
    loader.exec_module(build)
    chars, found = build.page_characters()
    with open(os.path.join(root, "web", "static", "fonts.css"), encoding="utf-8") as f:
        ranges = re.findall(r"unicode-range:([^;]*);", f.read())
    wd.check(bool(ranges), "fonts.css declares no unicode-range")
    covered: set[int] = set()
    for part in ranges[0].split(","):
        lo, _, hi = part.strip().removeprefix("U+").partition("-")
        covered.update(range(int(lo, 16), int(hi or lo, 16) + 1))
    missing = sorted(c for c in chars if ord(c) not in covered)
    where = sorted({f for f, cs in found.items() if cs & set(missing)})
    wd.check(not missing, f"the web font lacks {len(missing)} CJK characters of the sources: {''.join(missing)} "
                          f"(in {', '.join(where)}): run scripts/build-web-font and commit web/static/fonts")
    wd.log(f"fonts.css: the subset covers the {len(chars)} CJK characters of the sources")


# Runs in the page. Returns what the checks need; the Python side judges.
MEASURE = r"""
const TOFU = arguments[0];
const cjk = (s) => /[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]/.test(s);
const svg = document.querySelector('#board svg');
const faces = [...document.fonts].filter(f => f.family.replace(/["']/g, '') === 'Junqi CJK')
  .map(f => ({weight: String(f.weight), status: f.status}));
// Every CJK text of every SVG on the page (the board, a legend picture): the width of
// its CJK characters alone (a legend's 'railway 铁路' has Latin too).
const labels = [...document.querySelectorAll('svg text')].filter(t => cjk(t.textContent)).map(t => {
  const size = parseFloat(getComputedStyle(t).fontSize);
  const s = t.textContent;
  let n = 0, w = 0;
  for (let i = 0; i < s.length; i++) if (cjk(s[i])) { n++; w += t.getSubStringLength(i, 1); }
  return {text: s, size, n, em: w / (n * size), board: svg.contains(t),
          bold: getComputedStyle(t).fontWeight >= 600, family: getComputedStyle(t).fontFamily};
});
// The tofu box in the labels' own font and size: a text like theirs, of a character no
// font here has.
const first = svg.querySelector('g.piece text') || svg.querySelector('text');
const probe = first.cloneNode(false);
probe.textContent = TOFU + TOFU;
first.parentNode.appendChild(probe);
const tofuEm = probe.getComputedTextLength() / (2 * parseFloat(getComputedStyle(probe).fontSize));
probe.remove();
// The title: the CJK part of '#home', measured with a Range.
const home = document.querySelector('#home');
const node = [...home.childNodes].find(n => n.nodeType === 3 && cjk(n.textContent));
let title = null;
if (node) {
  const s = node.textContent, i = [...s].findIndex(cjk);
  const start = s.indexOf([...s][i]);
  const r = document.createRange();
  r.setStart(node, start); r.setEnd(node, s.length);
  const size = parseFloat(getComputedStyle(home).fontSize);
  title = {text: s.slice(start), em: r.getBoundingClientRect().width / ([...s.slice(start)].length * size)};
}
// Pictures: each label character, and the tofu box, drawn on a canvas in the page's font.
const chars = [...new Set(labels.filter(l => l.board).flatMap(l => [...l.text]).filter(cjk))].sort();
const pictures = {};
const c = document.createElement('canvas');
c.width = 48; c.height = 48;
const ctx = c.getContext('2d', {willReadFrequently: true});
for (const ch of [...chars, TOFU]) {
  ctx.clearRect(0, 0, 48, 48);
  ctx.fillStyle = '#000';
  ctx.font = 'bold 40px "Junqi CJK", sans-serif';
  ctx.textBaseline = 'middle';
  ctx.fillText(ch, 4, 24);
  const d = ctx.getImageData(0, 0, 48, 48).data;
  let ink = 0, bits = '';
  for (let p = 3; p < d.length; p += 4) { const on = d[p] > 127; ink += on; bits += on ? '1' : '0'; }
  pictures[ch] = {ink, bits};
}
return {faces, labels, tofuEm, title, pictures,
        check: document.fonts.check('16px "Junqi CJK"', '军'),
        checkBold: document.fonts.check('bold 16px "Junqi CJK"', '军')};
"""


def judge(m: dict[str, Any]) -> list[str]:
    bad: list[str] = []
    faces = m["faces"]
    loaded = {f["weight"] for f in faces if f["status"] == "loaded"}
    if not faces:
        bad.append('font: the page has no "Junqi CJK" font face (fonts.css not linked?)')
    elif loaded != {"400", "700"}:
        bad.append(f'font: "Junqi CJK" faces loaded: {sorted(loaded)} of {faces} (want 400 and 700)')
    if not m["check"] or not m["checkBold"]:
        bad.append(f"font: document.fonts.check('16px \"Junqi CJK\"', '军') is {m['check']}, bold {m['checkBold']}")
    labels = m["labels"]
    if len([lab for lab in labels if lab["board"]]) < 10:
        bad.append(f"labels: only {len(labels)} CJK labels on the board: {labels}")
    tofu = m["tofuEm"]
    if abs(tofu - 1.0) < 0.15:
        bad.append(f"widths: the tofu box {TOFU} measures {tofu:.2f} em, too near a glyph's 1 em "
                   "for the width test to tell them apart")
    for lab in labels:
        if not lab["family"].replace('"', "").replace("'", "").startswith("Junqi CJK"):
            bad.append(f"stack: label {lab['text']} is set in {lab['family']}")
            break
    wrong = [f"{lab['text']} {lab['em']:.2f} em" for lab in labels if abs(lab["em"] - 1.0) > 0.08]
    if wrong:
        bad.append(f"widths: {len(wrong)} of {len(labels)} labels are not one em a character "
                   f"(the tofu box is {tofu:.2f} em): {', '.join(wrong[:8])}")
    t = m["title"]
    if t is None:
        bad.append("widths: no CJK title in #home")
    elif abs(t["em"] - 1.0) > 0.08:
        bad.append(f"widths: the title {t['text']} is {t['em']:.2f} em a character (tofu {tofu:.2f})")
    pics = m["pictures"]
    box = pics.pop(TOFU)
    blank = "".join(ch for ch, p in sorted(pics.items()) if p["ink"] < 20)
    boxes = "".join(ch for ch, p in sorted(pics.items()) if p["ink"] >= 20 and p["bits"] == box["bits"])
    if blank:
        bad.append(f"pixels: {len(blank)} of {len(pics)} characters draw nothing: {blank}")
    if boxes:
        bad.append(f"pixels: {len(boxes)} of {len(pics)} characters draw the tofu box: {boxes}")
    seen: dict[str, str] = {}
    for ch, p in sorted(pics.items()):
        if p["ink"] >= 20 and p["bits"] != box["bits"] and p["bits"] in seen:
            bad.append(f"pixels: {ch} and {seen[p['bits']]} draw the same picture")
        seen.setdefault(p["bits"], ch)
    if len(pics) < 10:
        bad.append(f"pixels: only {len(pics)} label characters to draw")
    return bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--server", required=True, help="the junqi-web binary")
    ap.add_argument("--chromedriver", default=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    ap.add_argument("--static", metavar="DIR", help="serve the page's files from DIR (see above)")
    ap.add_argument("--screenshot", metavar="PNG", help="save the page as the test saw it")
    args = ap.parse_args()
    t0 = time.monotonic()
    tmp = tempfile.mkdtemp(prefix="junqi-web-fonts-")
    server = driver = browser = None
    try:
        font_covers_sources()
        conf = no_cjk_fontconfig(tmp)
        server, base = wd.start_server(args.server, tmp)
        if args.static:
            base = wd.static_proxy(args.static, base)
        # chromedriver passes its environment on to Chromium.
        saved = os.environ.get("FONTCONFIG_FILE")
        os.environ["FONTCONFIG_FILE"] = conf
        try:
            driver, durl = wd.start_chromedriver(args.chromedriver, tmp)
        finally:
            if saved is None:
                del os.environ["FONTCONFIG_FILE"]
            else:
                os.environ["FONTCONFIG_FILE"] = saved

        game = wd.http("POST", base + "/api/games", {"rules": "classic", "seats": {"south": "human", "north": "random"}})
        south = game["seats"]["south"]
        wd.http("POST", f"{base}/api/games/{game['game']}/confirm", {}, token=south["token"])
        browser = wd.Browser(durl, args.chromium, "fonts")
        browser.get(base + south["url"])
        browser.wait("return document.querySelectorAll('#board svg g.piece text').length >= 20", "the pieces' labels")
        # Fonts load as text needs them (font-display: swap): wait until nothing is
        # loading, then measure.
        browser.wait("return document.fonts.status === 'loaded'", "the page's fonts", 10)
        time.sleep(0.2)
        m = browser.js(MEASURE, TOFU)
        bad = judge(m)
        if args.screenshot:
            browser.screenshot(args.screenshot)
        labels = m["labels"]
        sample = ", ".join("%s %.2f em" % (lab["text"], lab["em"]) for lab in [x for x in labels if x["bold"]][:4])
        wd.log(f"{len(labels)} CJK labels, e.g. {sample}; "
               f"tofu box {m['tofuEm']:.2f} em; title {m['title']}; faces {m['faces']}; "
               f"{len(m['pictures'])} characters drawn, all distinct: {not any(b.startswith('pixels') for b in bad)}")
        if bad:
            for b in bad:
                print(f"FAILED: {b}", file=sys.stderr)
            path = os.path.join(tmp, "fonts.png")
            browser.screenshot(path)
            print(f"(screenshot and logs in {tmp})", file=sys.stderr)
            return 1
        wd.log(f"fonts: labels have real glyphs without a CJK font installed ({time.monotonic() - t0:.1f} s)")
        shutil.rmtree(tmp, ignore_errors=True)
        return 0
    except (wd.Failure, wd.WebDriverError) as e:
        print(f"FAILED: {e}", file=sys.stderr)
        print(f"(logs in {tmp})", file=sys.stderr)
        return 1
    finally:
        if browser is not None:
            browser.quit()
        for p in (driver, server):
            if p is not None:
                p.terminate()
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    p.kill()


if __name__ == "__main__":
    sys.exit(main())
