#!/usr/bin/env node
// The `docparse` executable (package.json "bin").
import { main } from './main.js';

main(process.argv.slice(2)).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
