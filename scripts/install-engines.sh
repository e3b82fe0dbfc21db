#!/usr/bin/env bash
# Installs the parsing engines that come from Debian packages, when any is missing:
# LibreOffice (DOC/XLS/PPT/RTF/OpenDocument, DOCX page counts), the metric-compatible fonts
# page counts depend on, and Tesseract's English model (PDF pdfMode=Ocr). Every other engine
# ships in npm packages. Nothing is downloaded at run time: this runs at install time, from
# `npm start` (prestart), .ci/setup.sh and the Dockerfile.
#
#   all installed                  → silent, exit 0 (one dpkg query)
#   missing, root or sudo          → apt-get installs them, saying which
#   missing, no way to install     → says what to run, exit 1; DOCPARSE_SKIP_ENGINE_INSTALL=1
#                                    starts anyway (the node lists them under engines.missing
#                                    in /health/ready and refuses the uploads that need them)
#   not Debian (no apt-get)        → says what to install by hand, exit 0
#
# --list prints the packages, one per line.
set -euo pipefail

ENGINE_PACKAGES=(
  tesseract-ocr-eng                                                                                # OCR model (PDF Ocr mode)
  libreoffice-core-nogui libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui  # legacy Office, OpenDocument, page rendering
  fonts-liberation2 fonts-crosextra-carlito fonts-crosextra-caladea fonts-urw-base35 fonts-ipafont-gothic fonts-ipafont-mincho  # page counts depend on these metrics
)

if [ "${1:-}" = "--list" ]; then
  printf '%s\n' "${ENGINE_PACKAGES[@]}"
  exit 0
fi

say() { echo "install-engines: $*"; }

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  say "not a Debian-based system: install LibreOffice (soffice) and Tesseract's English model (eng.traineddata) yourself;"
  say "without them the node refuses DOC/XLS/PPT/RTF/OpenDocument/DOCX and pdfMode=Ocr uploads (see engines.missing in /health/ready)."
  exit 0
fi

# One query for all of them; a package dpkg has never heard of is simply not listed.
installed=$(dpkg-query -W -f='${Package} ${Status}\n' "${ENGINE_PACKAGES[@]}" 2>/dev/null | awk '$NF == "installed" && $(NF-1) == "ok" { print $1 }' || true)
missing=()
for p in "${ENGINE_PACKAGES[@]}"; do
  grep -qx "$p" <<<"$installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  # Password-less sudo, or a terminal where the user can answer sudo's prompt.
  if command -v sudo >/dev/null 2>&1 && { sudo -n true 2>/dev/null || [ -t 0 ]; }; then
    as_root=(sudo)
  elif [ "${DOCPARSE_SKIP_ENGINE_INSTALL:-}" = "1" ]; then
    say "missing ${missing[*]}; starting without them (DOCPARSE_SKIP_ENGINE_INSTALL=1)"
    exit 0
  else
    say "these Debian packages are missing: ${missing[*]}"
    say "installing them needs root. Run:"
    say "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}"
    say "or start without them: DOCPARSE_SKIP_ENGINE_INSTALL=1 npm start"
    exit 1
  fi
fi

say "installing ${missing[*]} (Debian packages; a one-off)"
export DEBIAN_FRONTEND=noninteractive
${as_root[@]+"${as_root[@]}"} apt-get update -qq
${as_root[@]+"${as_root[@]}"} apt-get install -y -qq --no-install-recommends "${missing[@]}"
say "done"
