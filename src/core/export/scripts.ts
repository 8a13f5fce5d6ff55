// The bash scripts of an exported job. They are made of Braid's own words and variable names
// only: plan text (commands, prompts, env values) arrives in environment variables, step
// outputs are read from files, so nothing a step produced can become shell source.
import type { AgentFamily } from '../agents/presets';

/** What a step produces its output from, as locally: its `output` file, an agent's final answer, or its stdout. */
export type OutputSource = 'file' | 'stdout' | 'claude' | 'codex' | 'gemini';

export interface RunScript {
  /** Lines that load the needs' outputs and statuses into variables (RefVars.loads). */
  readonly loads: readonly string[];
  /** Lines run before the attempts: exports, the prompt. */
  readonly setup: readonly string[];
  /** The command of one attempt, without the timeout (a shell pipeline start, e.g. `sh -c "$BRAID_RUN"`). */
  readonly command: string;
  /** Whether the prompt goes to the command's stdin. */
  readonly stdinPrompt: boolean;
  readonly structured?: Exclude<AgentFamily, 'aider' | 'other'>;
  readonly output: OutputSource;
  readonly timeoutMs?: number;
  readonly retries: number;
  readonly retryDelayMs: number;
  /** Run `$BRAID_CHECK` inside each attempt (a step with retries: a failed check uses one). */
  readonly checkInside: boolean;
}

const OUTPUT_MAX = 65536;

const DIRS = ['braid_in="$RUNNER_TEMP/braid-in"', 'braid_out="$RUNNER_TEMP/braid-out"', 'mkdir -p "$braid_out"'];

const VALUE_FN = [
  '# NAME FILE DEFAULT: NAME=the file as it is (trailing newlines too), or DEFAULT without it',
  'braid_value() {',
  '  local braid_v="$3"',
  '  if [ -f "$2" ]; then IFS= read -r -d \'\' braid_v < "$2" || true; fi',
  '  export "$1=$braid_v"',
  '}',
];

// jq programs over an agent's JSON-lines stream (non-JSON lines are skipped), as the local
// stream parsers read it: the final answer, and whether the agent said it failed.
const EVENTS = '[split("\\n")[] | fromjson? | select(type == "object")]';
const ANSWER: Record<'claude' | 'codex' | 'gemini', string> = {
  claude: `${EVENTS} | map(select(.type == "result")) | last | (.result // "") | tostring`,
  codex: `${EVENTS} | map(select(.type == "item.completed" and .item.type == "agent_message") | .item.text) | last // "" | tostring`,
  gemini: `${EVENTS} | reduce .[] as $e ({before: "", since: "", tool: false}; `
    + `if $e.type == "tool_use" then .tool = true | .since = "" `
    + `elif $e.type == "message" and $e.role == "assistant" and ($e.content | type) == "string" then (if .tool then .since += $e.content else .before += $e.content end) `
    + `else . end) | (if (.since | test("\\\\S")) then .since else .before end) | sub("^\\\\s+"; "")`,
};
const FAILED: Record<'claude' | 'codex' | 'gemini', string> = {
  claude: `${EVENTS} | map(select(.type == "result")) | last | (.is_error == true)`,
  codex: `${EVENTS} | any(.type == "turn.failed")`,
  gemini: `${EVENTS} | any(.type == "error" or (.type == "result" and .status == "error"))`,
};

const TRIM_END = 'braid_v="${braid_v%"${braid_v##*[![:space:]]}"}"';

function outputLines(source: OutputSource): string[] {
  switch (source) {
    case 'file':
      return [
        '# the output file, relative to the step\'s directory (its last 64 KiB)',
        `if [ -f "$BRAID_OUTPUT_FILE" ]; then tail -c ${OUTPUT_MAX} "$BRAID_OUTPUT_FILE" > "$braid_out/output"; else : > "$braid_out/output"; fi`,
      ];
    case 'stdout':
      return [
        '# the last 64 KiB of stdout, trailing white space trimmed',
        'braid_v=""',
        `IFS= read -r -d '' braid_v < <(tail -c ${OUTPUT_MAX} "$braid_out/stdout") || true`,
        TRIM_END,
        'printf \'%s\' "$braid_v" > "$braid_out/output"',
      ];
    default:
      return [
        '# the agent\'s final answer',
        'braid_v=""',
        `IFS= read -r -d '' braid_v < <(jq -Rjs '${ANSWER[source]}' "$braid_out/stream") || true`,
        TRIM_END,
        'printf \'%s\' "$braid_v" > "$braid_out/output"',
      ];
  }
}

const seconds = (ms: number): string => `${Number((ms / 1000).toFixed(3))}s`;

/** The step that runs the command: bounded attempts with doubling back-off, output and status to files. */
export function runScript(s: RunScript): string {
  const lines: string[] = [...DIRS];
  if (s.loads.length > 0) lines.push(...VALUE_FN, ...s.loads);
  lines.push(...s.setup);
  const timeout = s.timeoutMs !== undefined ? `timeout --kill-after=10s ${seconds(s.timeoutMs)} ` : '';
  const sink = s.structured ? '"$braid_out/stream"' : '"$braid_out/stdout"';
  const feed = s.stdinPrompt ? 'printf \'%s\' "$braid_prompt" | ' : '';
  lines.push(
    '# one attempt',
    'braid_attempt() {',
    `  ${feed}${timeout}${s.command}${s.stdinPrompt ? '' : ' < /dev/null'} | tee ${sink}`,
    `  local braid_status=\${PIPESTATUS[${s.stdinPrompt ? 1 : 0}]}`,
    ...(s.timeoutMs !== undefined ? [`  if [ "$braid_status" -eq 124 ]; then echo "::error::timed out after ${seconds(s.timeoutMs)}"; fi`] : []),
    '  if [ "$braid_status" -ne 0 ]; then return "$braid_status"; fi',
  );
  if (s.structured) {
    lines.push(`  if jq -Rse '${FAILED[s.structured]}' "$braid_out/stream" > /dev/null; then echo "::error::the agent reported an error"; return 1; fi`);
  }
  if (s.checkInside) {
    lines.push('  local braid_check=0', '  sh -c "$BRAID_CHECK" || braid_check=$?',
      '  if [ "$braid_check" -ne 0 ]; then echo "::error::check failed (exit $braid_check)"; return "$braid_check"; fi');
  }
  lines.push('  return 0', '}');
  if (s.retries === 0) lines.push('braid_code=0', 'braid_attempt || braid_code=$?');
  else {
    lines.push(
      `# ${s.retries + 1} attempts at most; the delay doubles after each failure (with up to 20 % jitter)`,
      'braid_try=1',
      `braid_delay=${Math.round(s.retryDelayMs)}`,
      'while :; do',
      '  braid_code=0',
      '  braid_attempt || braid_code=$?',
      `  if [ "$braid_code" -eq 0 ] || [ "$braid_try" -gt ${s.retries} ]; then break; fi`,
      '  braid_wait=$(( braid_delay * (1000 + RANDOM % 200) / 1000 ))',
      '  echo "::warning::attempt $braid_try failed (exit $braid_code); retrying in $braid_wait ms"',
      '  sleep "$(( braid_wait / 1000 )).$(printf \'%03d\' $(( braid_wait % 1000 )))"',
      '  braid_delay=$(( braid_delay * 2 ))',
      '  braid_try=$(( braid_try + 1 ))',
      'done',
    );
  }
  lines.push('if [ "$braid_code" -eq 0 ]; then');
  lines.push(...outputLines(s.output).map((l) => `  ${l}`));
  lines.push('  printf succeeded > "$braid_out/status"', 'else', '  printf failed > "$braid_out/status"', 'fi', 'exit "$braid_code"');
  return lines.join('\n') + '\n';
}

/** A command of the plan run alone: `check` as a step after the command (a step without retries), or `setup`. */
export function commandScript(loads: readonly string[], setup: readonly string[], variable: 'BRAID_CHECK' | 'BRAID_SETUP'): string {
  const what = variable === 'BRAID_CHECK' ? 'check' : 'set-up';
  const lines = [...DIRS];
  if (loads.length > 0) lines.push(...VALUE_FN, ...loads);
  lines.push(
    ...setup,
    'braid_code=0',
    `sh -c "$${variable}" < /dev/null || braid_code=$?`,
    'if [ "$braid_code" -ne 0 ]; then',
    `  echo "::error::${what} failed (exit $braid_code)"`,
    '  printf failed > "$braid_out/status"',
    'fi',
    'exit "$braid_code"',
  );
  return lines.join('\n') + '\n';
}

const IDENTITY = '-c user.name=braid -c user.email=braid@users.noreply.github.com';

/**
 * Merges the needs' work ($BRAID_NEEDS: their artifacts, in plan order; each a git bundle of the
 * commits from the workflow's commit to the need's end) into the checkout: the step's base.
 */
export const MERGE_NEEDS_SCRIPT = [
  'braid_in="$RUNNER_TEMP/braid-in"',
  'braid_heads=()',
  'for braid_a in $BRAID_NEEDS; do',
  '  braid_b="$braid_in/$braid_a/change.bundle"',
  '  if [ ! -f "$braid_b" ]; then continue; fi',
  '  git fetch -q --no-tags "$braid_b" "HEAD:refs/braid/$braid_a"',
  '  braid_heads+=("refs/braid/$braid_a")',
  'done',
  'if [ "${#braid_heads[@]}" -gt 0 ]; then',
  `  if ! git ${IDENTITY} merge -q --no-edit -m "braid: the needs' changes" "\${braid_heads[@]}"; then`,
  '    echo "::error::the changes of this step\'s needs do not merge (a conflict)"',
  '    exit 1',
  '  fi',
  'fi',
  'echo "starting from $(git rev-parse HEAD) (${#braid_heads[@]} need(s) merged)"',
].join('\n') + '\n';

/**
 * Hands the step's work on: a succeeded step commits its change (one commit, possibly empty) on
 * its base; the bundle of everything since the workflow's commit goes into the artifact, so a
 * dependent merges it and the last job cherry-picks the step's own commit. A failed step hands
 * on its base only.
 */
export const HAND_ON_SCRIPT = [
  'braid_out="$RUNNER_TEMP/braid-out"',
  'mkdir -p "$braid_out"',
  '# no status: the job was canceled or timed out before the command ended',
  'if [ ! -f "$braid_out/status" ]; then printf failed > "$braid_out/status"; fi',
  'rm -f "$braid_out/stdout"',
  'cd "$GITHUB_WORKSPACE"',
  'if [ "$(cat "$braid_out/status")" = succeeded ]; then',
  '  git add -A',
  `  git ${IDENTITY} commit -q --allow-empty --no-verify -m "braid: $BRAID_STEP_ID"`,
  'fi',
  'if [ "$(git rev-parse HEAD)" != "$GITHUB_SHA" ]; then git bundle create -q "$braid_out/change.bundle" HEAD "^$GITHUB_SHA"; fi',
  'ls -l "$braid_out"',
].join('\n') + '\n';

/** The last job: each succeeded step's own commit, cherry-picked in plan order, pushed as one branch. */
export const LAND_SCRIPT = [
  'braid_in="$RUNNER_TEMP/braid-in"',
  'git config user.name "github-actions[bot]"',
  'git config user.email "41898282+github-actions[bot]@users.noreply.github.com"',
  'braid_landed=0',
  'braid_conflicts=""',
  'for braid_a in $BRAID_CHANGES; do',
  '  braid_b="$braid_in/$braid_a/change.bundle"',
  '  if [ ! -f "$braid_b" ] || [ "$(cat "$braid_in/$braid_a/status" 2>/dev/null)" != succeeded ]; then continue; fi',
  '  git fetch -q --no-tags "$braid_b" "HEAD:refs/braid/$braid_a"',
  '  braid_c="refs/braid/$braid_a"',
  '  # the step\'s own commit is the bundle\'s head; its parent is what the step started from',
  '  if [ "$(git rev-parse "$braid_c^{tree}")" = "$(git rev-parse "$braid_c~1^{tree}")" ]; then continue; fi',
  '  if git cherry-pick "$braid_c" > /dev/null; then',
  '    braid_landed=$(( braid_landed + 1 ))',
  '  else',
  '    git cherry-pick --abort',
  '    echo "::error::the change of ${braid_a#braid-} does not apply on top of the changes before it (a conflict); it is in the artifact $braid_a"',
  '    braid_conflicts="$braid_conflicts ${braid_a#braid-}"',
  '  fi',
  'done',
  'if [ "$braid_landed" -eq 0 ]; then',
  '  echo "No step changed anything: no branch pushed." | tee -a "$GITHUB_STEP_SUMMARY"',
  'else',
  '  git push origin "HEAD:refs/heads/$BRAID_BRANCH"',
  '  {',
  '    echo "$braid_landed change(s) of $BRAID_PLAN_NAME on the branch $BRAID_BRANCH, one commit a step."',
  '    echo "Open a pull request: $GITHUB_SERVER_URL/$GITHUB_REPOSITORY/compare/$BRAID_BRANCH?expand=1"',
  '  } | tee -a "$GITHUB_STEP_SUMMARY"',
  'fi',
  'if [ -n "$braid_conflicts" ]; then echo "::error::not landed (conflicts):$braid_conflicts"; exit 1; fi',
].join('\n') + '\n';
