#!/usr/bin/env bash
# System packages for the VS Code end-to-end tests (scripts/vscode-offline.mjs):
#   chromium     the browser Playwright drives (/usr/bin/chromium)
#   libkrb5-dev  gssapi headers for code-server's `kerberos` native module
# A no-op when both are installed. Needs root (or sudo) and Debian's apt.
set -euo pipefail

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
if ! dpkg-query -W -f='${Status}' libkrb5-dev 2>/dev/null | grep -q 'install ok installed'; then
  missing+=(libkrb5-dev)
fi
if [ ${#missing[@]} -eq 0 ]; then
  echo "[install-system-deps] chromium and libkrb5-dev already installed"
  exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "[install-system-deps] need root to install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
echo "[install-system-deps] installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update
"${sudo[@]}" apt-get install -y "${missing[@]}"
