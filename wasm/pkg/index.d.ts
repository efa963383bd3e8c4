// The package's types: those wasm-bindgen generates from the junqi-wasm crate. The
// module initializes itself when imported (top-level await), so there is no init().
export * from "./dist/junqi.js";
