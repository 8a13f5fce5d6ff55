#!/usr/bin/env bash
# Debian packages the integration tests need beyond Node and git: bubblewrap, for `sandbox: true`
# (test/integration/sandbox.test.ts); tmux, to type into an agent CLI a person attached to
# (test/contract/takeover.test.ts). Idempotent: returns at once when everything is there.
set -euo pipefail
log() { echo "[setup-system] $*"; }
missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v git >/dev/null 2>&1 || missing+=(git)
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
if ((${#missing[@]} == 0)); then
  log "Debian packages present (bubblewrap, git, tmux)"
  exit 0
fi
log "installing Debian packages: ${missing[*]}"
source "$(dirname "$0")/lib/apt.sh"
apt_install "${missing[@]}"
