// GDAL (gdal3.js 2.8.1 = GDAL 3.8.4 in WASM): where its engine files are and how a thread
// loads it. The implementation lives in src/formats/gis/engine.ts because tsconfig's rootDir
// is src/ (a file here is not compiled into dist/); this module re-exports it so every
// engine loader can be found under wasm/.
//
// - Files: node_modules/gdal3.js/dist/package/gdal3WebAssembly.wasm (28 MB) and
//   gdal3WebAssembly.data (12 MB: PROJ database, GDAL data), shipped inside the npm tarball;
//   nothing is downloaded at run time. `gdalAssetDir()` resolves the folder through
//   require.resolve('gdal3.js/node.js') and fails clearly when a file is missing.
// - gdal3.js reads the .data file as `./${path}`, so the `path` option passed at start-up is
//   made RELATIVE to process.cwd(); the working directory must not change afterwards.
// - Start-up (~1–2.5 s, ~200 MB resident) happens once per worker thread (module-level
//   promise); `withGdal()` serialises jobs inside the thread (GDAL and the Emscripten FS hold
//   global state) and mounts each job's private scratch folder at /dp.
export { GDAL_VERSION, GdalError, GdalSession, gdalAssetDir, gdalBroken, warmGdal, withGdal } from '../src/formats/gis/engine.js';
