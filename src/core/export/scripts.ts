// The `run:` of each exported step: a few lines over the workflow's shell library (BRAID_SH,
// shellLibrary.ts). Made of Braid's own words and variable names only: plan text (commands,
// prompts, env values) arrives in environment variables and step outputs are read from files,
// so nothing a step produced can become shell source.

const LOAD = 'eval "$BRAID_SH"';

const script = (lines: readonly string[]): string => [LOAD, ...lines].join('\n') + '\n';

/** The step that runs the command: `loads` (outputs, statuses), `setup` (exports, the prompt), then `braid_run COMMAND`. */
export function runScript(loads: readonly string[], setup: readonly string[], command: string): string {
  return script([...loads, ...setup, `braid_run ${command}`]);
}

/** A plan command run alone: `check` after the command (a step without retries), or `setup`. */
export function commandScript(
  loads: readonly string[],
  setup: readonly string[],
  variable: 'BRAID_CHECK' | 'BRAID_SETUP',
): string {
  return script([...loads, ...setup, `braid_command ${variable} ${variable === 'BRAID_CHECK' ? 'check' : 'set-up'}`]);
}

export const MERGE_NEEDS_SCRIPT = script(['braid_merge_needs']);

export const HAND_ON_SCRIPT = script(['braid_hand_on']);

/** The last job: each succeeded step's own commit, cherry-picked in plan order, pushed as one branch. */
export const LAND_SCRIPT =
  [
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
    "  # the step's own commit is the bundle's head; its parent is what the step started from",
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
    "  # the branch is this run's own: a re-run of this job replaces what an earlier attempt pushed",
    '  git push --force origin "HEAD:refs/heads/$BRAID_BRANCH"',
    '  {',
    '    echo "$braid_landed change(s) of $BRAID_PLAN_NAME on the branch $BRAID_BRANCH, one commit a step."',
    '    echo "Open a pull request: $GITHUB_SERVER_URL/$GITHUB_REPOSITORY/compare/$BRAID_BRANCH?expand=1"',
    '  } | tee -a "$GITHUB_STEP_SUMMARY"',
    'fi',
    'if [ -n "$braid_conflicts" ]; then echo "::error::not landed (conflicts):$braid_conflicts"; exit 1; fi',
  ].join('\n') + '\n';
