// The JavaScript in docs/js.md (the tour) and in README.md runs as written, with
// `import ... from "junqi"` pointing at this package.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const here = new URL("..", import.meta.url);
const blocks = (text) => [...text.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);

async function run(code) {
  const dir = mkdtempSync(join(tmpdir(), "junqi-js-doc-"));
  try {
    const file = join(dir, "doc.mjs");
    writeFileSync(file, code.replaceAll('from "junqi"', `from ${JSON.stringify(new URL("index.js", here).href)}`));
    await import(pathToFileURL(file).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("docs/js.md: the tour runs", async () => {
  const doc = readFileSync(new URL("../../docs/js.md", here), "utf8");
  const code = blocks(doc);
  assert.ok(code.length >= 1);
  for (const c of code) await run(c);
});

test("README.md: the example runs", async () => {
  const code = blocks(readFileSync(new URL("README.md", here), "utf8"));
  assert.equal(code.length, 1);
  await run(code[0]);
});

test("docs/errors.md: every kind of refusal is in the ErrorKind type", () => {
  const table = readFileSync(new URL("../../docs/errors.md", here), "utf8");
  const kinds = [...table.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]);
  assert.ok(kinds.length > 10);
  const types = readFileSync(new URL("dist/junqi.d.ts", here), "utf8");
  const union = types.split("export type ErrorKind =")[1].split(";")[0];
  assert.deepEqual([...union.matchAll(/"([a-z_]+)"/g)].map((m) => m[1]), kinds);
});
