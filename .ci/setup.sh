#!/usr/bin/env bash
# Prepares a fresh Debian 12 machine for the test suite: system packages, npm packages,
# and the services the tests talk to (Redis, PostgreSQL), started only when not running.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

# Debian packages the tests need beyond the engines (those are installed below by
# scripts/install-engines.sh, the same step `npm start` and the Dockerfile run).
APT_PACKAGES=(
  redis-server postgresql postgresql-client          # services the integration tests use
  chromium                                           # the dashboard's end-to-end tests (driven by playwright-core; no browser is downloaded)
  gdal-bin                                           # ogrinfo: native feature ids (FIDs) in the GIS provenance test
  strace                                             # the embedded control plane's durability test watches its syncs
  poppler-utils poppler-data                         # pdfinfo/pdftotext: ground truth in the PDF tests (poppler-data: CJK encodings, without which pdftotext reads nothing from the Japanese files)
)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Engine data the parsers load from installed packages: LibreOffice, its fonts, Tesseract's
# English model (nothing is downloaded at run time). The tests need every engine.
bash scripts/install-engines.sh

# Redis on 127.0.0.1:6379, nothing persisted.
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "setup: starting redis-server"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  for _ in $(seq 1 50); do redis-cli -h 127.0.0.1 ping >/dev/null 2>&1 && break; sleep 0.2; done
fi

# PostgreSQL on 127.0.0.1:5432.
if ! pg_isready -h 127.0.0.1 -p 5432 -q; then
  echo "setup: starting PostgreSQL"
  version=$(ls /etc/postgresql | sort -V | tail -n 1)
  $SUDO pg_ctlcluster --skip-systemctl-redirect "$version" main start
  for _ in $(seq 1 50); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 0.2; done
fi
# Tests connect as postgres over TCP: give it a known password (works under trust and scram).
if ! psql "postgres://postgres:postgres@127.0.0.1:5432/postgres" -Atqc 'select 1' >/dev/null 2>&1; then
  if [ -n "$SUDO" ]; then
    sudo -u postgres psql -q -c "ALTER USER postgres PASSWORD 'postgres'"
  else
    su postgres -c "psql -q -c \"ALTER USER postgres PASSWORD 'postgres'\""
  fi
fi

# npm packages exactly as locked.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
