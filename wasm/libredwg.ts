// LibreDWG (libredwg-web 0.7.14) loader. The implementation lives in
// src/formats/cad/libredwg.ts because tsconfig compiles only src/ (rootDir) into dist/;
// this file re-exports it for code and tools that follow the wasm/ convention.
//
// How the engine is found: require.resolve('@mlightcad/libredwg-web') → <pkg>/dist/…,
// the .wasm and its Emscripten glue are in <pkg>/wasm/ (libredwg-web.wasm, libredwg-web.js).
// The .wasm is compiled once per thread (WebAssembly.compile) and instantiated per drawing
// (LibreDWG crashes on a second DWG in one instance).
export { compileLibreDwg, libredwgWasmDir, newLibreDwgInstance } from '../src/formats/cad/libredwg.js';
