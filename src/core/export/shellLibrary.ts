// The bash functions every exported job uses, written once into the workflow's env (BRAID_SH)
// and loaded by each step with `eval "$BRAID_SH"`: a workflow file is at most 500 KB, and these
// would otherwise be repeated in every job. Braid's own text only, a constant: no plan text and
// no value reaches it. Each function reads its settings from the step's env (BRAID_RETRIES…).

// jq programs over an agent's JSON-lines stream (non-JSON lines skipped), as the local stream
// parsers read it: the final answer, and whether the agent said it failed.
const EVENTS = '[split("\\n")[] | fromjson? | select(type == "object")]';
const ANSWER = {
  claude: `${EVENTS} | map(select(.type == "result")) | last | (.result // "") | tostring`,
  codex: `${EVENTS} | map(select(.type == "item.completed" and .item.type == "agent_message") | .item.text) | last // "" | tostring`,
  gemini:
    `${EVENTS} | reduce .[] as $e ({before: "", since: "", tool: false}; ` +
    'if $e.type == "tool_use" then .tool = true | .since = "" ' +
    'elif $e.type == "message" and $e.role == "assistant" and ($e.content | type) == "string" then (if .tool then .since += $e.content else .before += $e.content end) ' +
    'else . end) | (if (.since | test("\\\\S")) then .since else .before end) | sub("^\\\\s+"; "")',
};
const FAILED = {
  claude: `${EVENTS} | map(select(.type == "result")) | last | (.is_error == true)`,
  codex: `${EVENTS} | any(.type == "turn.failed")`,
  gemini: `${EVENTS} | any(.type == "error" or (.type == "result" and .status == "error"))`,
};

const IDENTITY = '-c user.name=braid -c user.email=braid@users.noreply.github.com';

export const SHELL_LIBRARY = `# Braid's functions for this workflow's jobs (braid export github-actions).
braid_in="$RUNNER_TEMP/braid-in"
braid_out="$RUNNER_TEMP/braid-out"
mkdir -p "$braid_out"

# braid_value NAME FILE DEFAULT: NAME=the file as it is (trailing newlines too), else DEFAULT.
braid_value() {
  local v="$3"
  if [ -f "$2" ]; then IFS= read -r -d '' v < "$2" || true; fi
  export "$1=$v"
}

# One attempt of the command "$@": under BRAID_TIMEOUT, its stdout also to a file, then (with
# BRAID_CHECK_EACH) the check: a failed check uses a retry, as in Braid.
braid_attempt() {
  local sink="$braid_out/stdout" status
  if [ -n "\${BRAID_AGENT:-}" ]; then sink="$braid_out/stream"; fi
  if [ -n "\${BRAID_TIMEOUT:-}" ]; then set -- timeout --kill-after=10s "$BRAID_TIMEOUT" "$@"; fi
  if [ "\${BRAID_STDIN:-}" = prompt ]; then
    printf '%s' "$braid_prompt" | "$@" | tee "$sink"
    status=\${PIPESTATUS[1]}
  else
    "$@" < /dev/null | tee "$sink"
    status=\${PIPESTATUS[0]}
  fi
  if [ "$status" -eq 124 ] && [ -n "\${BRAID_TIMEOUT:-}" ]; then echo "::error::timed out after $BRAID_TIMEOUT"; fi
  if [ "$status" -ne 0 ]; then return "$status"; fi
  local failed=''
  case "\${BRAID_AGENT:-}" in
    claude) failed='${FAILED.claude}' ;;
    codex) failed='${FAILED.codex}' ;;
    gemini) failed='${FAILED.gemini}' ;;
  esac
  if [ -n "$failed" ] && jq -Rse "$failed" "$sink" > /dev/null; then echo "::error::the agent reported an error"; return 1; fi
  if [ -n "\${BRAID_CHECK_EACH:-}" ]; then
    local check=0
    sh -c "$BRAID_CHECK" < /dev/null || check=$?
    if [ "$check" -ne 0 ]; then echo "::error::check failed (exit $check)"; return "$check"; fi
  fi
  return 0
}

# The step's output, as Braid makes it: the output file (its last 64 KiB), the agent's final
# answer, or the last 64 KiB of stdout; trailing white space trimmed but in a file.
braid_output() {
  local v='' answer=''
  case "\${BRAID_AGENT:-}" in
    claude) answer='${ANSWER.claude}' ;;
    codex) answer='${ANSWER.codex}' ;;
    gemini) answer='${ANSWER.gemini}' ;;
  esac
  if [ -n "\${BRAID_OUTPUT_FILE:-}" ]; then
    if [ -f "$BRAID_OUTPUT_FILE" ]; then tail -c 65536 "$BRAID_OUTPUT_FILE" > "$braid_out/output"; else : > "$braid_out/output"; fi
    return 0
  elif [ -n "$answer" ]; then
    IFS= read -r -d '' v < <(jq -Rjs "$answer" "$braid_out/stream") || true
  else
    IFS= read -r -d '' v < <(tail -c 65536 "$braid_out/stdout") || true
  fi
  v="\${v%"\${v##*[![:space:]]}"}"
  printf '%s' "$v" > "$braid_out/output"
}

# braid_run COMMAND…: at most 1 + BRAID_RETRIES attempts, the delay from BRAID_RETRY_DELAY_MS
# doubling after each failure (up to 20 % jitter); then the output and status files.
braid_run() {
  local tries=$(( \${BRAID_RETRIES:-0} + 1 )) delay=\${BRAID_RETRY_DELAY_MS:-2000} try=1 code wait
  while :; do
    code=0
    braid_attempt "$@" || code=$?
    if [ "$code" -eq 0 ] || [ "$try" -ge "$tries" ]; then break; fi
    wait=$(( delay * (1000 + RANDOM % 200) / 1000 ))
    echo "::warning::attempt $try failed (exit $code); retrying in $wait ms"
    sleep "$(( wait / 1000 )).$(printf '%03d' $(( wait % 1000 )))"
    delay=$(( delay * 2 ))
    try=$(( try + 1 ))
  done
  if [ "$code" -eq 0 ]; then braid_output; printf succeeded > "$braid_out/status"; else printf failed > "$braid_out/status"; fi
  return "$code"
}

# braid_command VARIABLE WHAT: a plan command run alone (a check after the step, a set-up).
braid_command() {
  local code=0
  sh -c "\${!1}" < /dev/null || code=$?
  if [ "$code" -ne 0 ]; then echo "::error::$2 failed (exit $code)"; printf failed > "$braid_out/status"; fi
  return "$code"
}

# Merges the needs' work ($BRAID_NEEDS: their artifacts in plan order, each a git bundle of the
# commits from the workflow's commit to the need's end) into the checkout: the step's base.
braid_merge_needs() {
  local a b heads=()
  for a in $BRAID_NEEDS; do
    b="$braid_in/$a/change.bundle"
    if [ ! -f "$b" ]; then continue; fi
    git fetch -q --no-tags "$b" "HEAD:refs/braid/$a"
    heads+=("refs/braid/$a")
  done
  if [ "\${#heads[@]}" -gt 0 ] && ! git ${IDENTITY} merge -q --no-edit -m "braid: the needs' changes" "\${heads[@]}"; then
    echo "::error::the changes of this step's needs do not merge (a conflict)"
    return 1
  fi
  echo "starting from $(git rev-parse HEAD) (\${#heads[@]} need(s) merged)"
}

# Hands the work on: a succeeded step commits its change (one commit, maybe empty) on its base;
# the bundle of all since the workflow's commit goes into the artifact (a failed step: its base).
braid_hand_on() {
  if [ ! -f "$braid_out/status" ]; then printf failed > "$braid_out/status"; fi
  rm -f "$braid_out/stdout"
  cd "$GITHUB_WORKSPACE"
  if [ "$(cat "$braid_out/status")" = succeeded ]; then
    git add -A
    git ${IDENTITY} commit -q --allow-empty --no-verify -m "braid: $BRAID_STEP_ID"
  fi
  if [ "$(git rev-parse HEAD)" != "$GITHUB_SHA" ]; then git bundle create -q "$braid_out/change.bundle" HEAD "^$GITHUB_SHA"; fi
  ls -l "$braid_out"
}
`;
