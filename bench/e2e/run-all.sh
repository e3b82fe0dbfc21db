#!/usr/bin/env bash
# Runs every end-to-end bench once, in order, with the machine's load before each; the JSON
# summaries go to $OUT (default a temp dir). ~8–10 minutes on 2 busy cores. Needs `npm run build`,
# and for the redis mode PostgreSQL on 127.0.0.1:5432 and Redis on 127.0.0.1:6379.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$(mktemp -d /tmp/dp-bench-e2e-out-XXXXXX)}
mkdir -p "$OUT"
echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  nproc: $(nproc)  node: $(node -v)" | tee "$OUT/machine.txt"
run() {
  local name=$1; shift
  echo "== $name: $* (uptime: $(uptime | sed 's/.*load average/load average/'))" | tee -a "$OUT/machine.txt"
  node "$@" > "$OUT/$name.json" 2> >(tee "$OUT/$name.log" >&2)
}
run latency-embedded bench/e2e/latency.mjs --mode embedded
run latency-redis    bench/e2e/latency.mjs --mode redis
run polling-embedded bench/e2e/polling.mjs --mode embedded
run polling-redis    bench/e2e/polling.mjs --mode redis
run big-upload       bench/e2e/big-upload.mjs
echo "results in $OUT"
