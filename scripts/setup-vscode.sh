#!/usr/bin/env bash
# Installs what the real-VS-Code tests need: Debian's ripgrep/chromium (+ kerberos headers for
# code-server's native build) and code-server into a git-ignored cache folder. Pinned and
# idempotent: a second run only checks markers and returns in well under a second.
# Why code-server and not @vscode/test-electron's download: this machine reaches only npm and
# Debian (see shared/design/real-vscode-testing.md).
set -euo pipefail

CODE_SERVER_VERSION="4.100.3"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="${BRAID_VSCODE_CACHE:-$ROOT/.vscode-test/code-server}"
MARKER="$CACHE/.installed-version"
BIN="$CACHE/node_modules/code-server/out/node/entry.js"

log() { echo "[setup-vscode] $*"; }

# --- Debian packages ------------------------------------------------------------------------
missing=()
command -v rg >/dev/null 2>&1 || missing+=(ripgrep)
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
if ((${#missing[@]})); then
  log "installing Debian packages: ${missing[*]}"
  source "$ROOT/scripts/lib/apt.sh"
  apt_install "${missing[@]}"
else
  log "Debian packages present (ripgrep, libkrb5-dev, chromium)"
fi

# --- code-server ----------------------------------------------------------------------------
if [ -f "$MARKER" ] && [ "$(cat "$MARKER")" = "$CODE_SERVER_VERSION" ] && [ -f "$BIN" ]; then
  log "code-server $CODE_SERVER_VERSION already installed in $CACHE"
  exit 0
fi

log "installing code-server@$CODE_SERVER_VERSION into $CACHE (about a minute)"
rm -f "$MARKER"
mkdir -p "$CACHE"
# Its own package.json so npm does not walk up into the project's package.json/lockfile.
if [ ! -f "$CACHE/package.json" ]; then
  printf '{\n  "name": "braid-vscode-test-cache",\n  "private": true,\n  "description": "code-server for Braid extension tests (scripts/setup-vscode.sh)"\n}\n' >"$CACHE/package.json"
fi

# @vscode/ripgrep's postinstall downloads rg from GitHub unless its cache already holds the
# archive: put Debian's rg there under the exact name it asks for.
TMP="${TMPDIR:-/tmp}"
RG_CACHE_DIR="$TMP/vscode-ripgrep-cache-1.15.11"
RG_ARCHIVE="$RG_CACHE_DIR/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz"
if [ ! -s "$RG_ARCHIVE" ]; then
  log "seeding @vscode/ripgrep cache with Debian's rg: $RG_ARCHIVE"
  mkdir -p "$RG_CACHE_DIR"
  tar -czf "$RG_ARCHIVE" -C "$(dirname "$(command -v rg)")" rg
fi

# nodedir: node-gyp builds against the system Node headers (no header download);
# unsafe_perm: postinstalls refuse root otherwise; yes: node-pty's postinstall runs `npx node-gyp`.
(
  cd "$CACHE"
  export npm_config_nodedir=/usr npm_config_unsafe_perm=true npm_config_yes=true
  export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
  export npm_config_loglevel="${npm_config_loglevel:-warn}"
  npm install --no-save --no-package-lock "code-server@$CODE_SERVER_VERSION" </dev/null
)

if [ ! -f "$BIN" ]; then
  log "ERROR: code-server entry point missing after install: $BIN" >&2
  exit 1
fi
# Even --version writes a default config: keep it out of the user's ~/.config.
CHECK_HOME="$(mktemp -d)"
log "code-server: $(XDG_CONFIG_HOME="$CHECK_HOME" XDG_DATA_HOME="$CHECK_HOME" node "$BIN" --version 2>&1 | tail -1)"
rm -rf "$CHECK_HOME"
echo "$CODE_SERVER_VERSION" >"$MARKER"
log "done"
