#!/usr/bin/env bash
# Installs the real agent CLIs whose flags Braid's presets use (claude, codex, gemini) from the
# npm registry into a git-ignored cache folder, for the contract suite (`npm run test:contract`):
# test/contract/agentFlags.test.ts checks every preset flag against the CLI's own --help, and the
# other contract tests run the CLIs headless through `braid run` against a loopback model server. Pinned and idempotent: a second run compares the
# marker with the wanted versions and returns at once.
# Versions: the newest whose `engines` accept Node 20 (read from the registry on 2026-12-02):
#   @anthropic-ai/claude-code 2.1.197 (2.1.198 and later declare node >=22)
#   @openai/codex 0.171.0 (node >=16; the CLI is a native binary in a platform package)
#   @google/gemini-cli 0.61.0 (node >=20)
# Nothing here logs in or calls a real model: the tests point the CLIs at 127.0.0.1 only.
set -euo pipefail

CLAUDE_VERSION="2.1.197"
CODEX_VERSION="0.171.0"
GEMINI_VERSION="0.61.0"
WANT="claude-code@$CLAUDE_VERSION codex@$CODEX_VERSION gemini-cli@$GEMINI_VERSION"

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="${BRAID_AGENTS_CACHE:-$ROOT/.vscode-test/agents}"
MARKER="$CACHE/.installed-versions"
BIN="$CACHE/node_modules/.bin"

log() { echo "[setup-agents] $*"; }

all_bins() { [ -x "$BIN/claude" ] && [ -x "$BIN/codex" ] && [ -x "$BIN/gemini" ]; }

if [ -f "$MARKER" ] && [ "$(cat "$MARKER")" = "$WANT" ] && all_bins; then
  log "agent CLIs already installed in $CACHE ($WANT)"
  exit 0
fi

log "installing $WANT into $CACHE"
rm -f "$MARKER"
mkdir -p "$CACHE"
# Its own package.json so npm does not walk up into the project's package.json/lockfile.
if [ ! -f "$CACHE/package.json" ]; then
  printf '{\n  "name": "braid-agents-test-cache",\n  "private": true,\n  "description": "Agent CLIs for Braid preset flag tests (scripts/setup-agents.sh)"\n}\n' >"$CACHE/package.json"
fi

(
  cd "$CACHE"
  export npm_config_yes=true
  export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
  export npm_config_loglevel="${npm_config_loglevel:-warn}"
  npm install --no-save --no-package-lock \
    "@anthropic-ai/claude-code@$CLAUDE_VERSION" \
    "@openai/codex@$CODEX_VERSION" \
    "@google/gemini-cli@$GEMINI_VERSION" </dev/null
)

if ! all_bins; then
  log "ERROR: a CLI is missing after install; in $BIN: $(ls "$BIN" 2>/dev/null | tr '\n' ' ')" >&2
  exit 1
fi
# Keep any config the CLIs write on --version out of the user's home.
CHECK_HOME="$(mktemp -d)"
for cli in claude codex gemini; do
  v="$(HOME="$CHECK_HOME" XDG_CONFIG_HOME="$CHECK_HOME" "$BIN/$cli" --version </dev/null 2>&1 | tail -1 || true)"
  log "$cli: $v"
done
rm -rf "$CHECK_HOME"
echo "$WANT" >"$MARKER"
log "done"
