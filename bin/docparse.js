#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (`npm run build`).
import { main } from '../dist/main.js';
main(process.argv.slice(2)).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
