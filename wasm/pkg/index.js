// The junqi package: the engine compiled to WebAssembly (dist/, written by
// wasm-bindgen from the junqi-wasm crate), loaded once when this module is imported.
// In Node the .wasm is read from disk; in a browser it is fetched next to this file.
// No network beyond that, no server.
import init, { initSync } from "./dist/junqi.js";

export * from "./dist/junqi.js";

const wasm = new URL("./dist/junqi_bg.wasm", import.meta.url);
if (typeof process === "object" && process.versions && process.versions.node && wasm.protocol === "file:") {
  const { readFileSync } = await import("node:fs");
  initSync({ module: readFileSync(wasm) });
} else {
  await init({ module_or_path: wasm });
}
