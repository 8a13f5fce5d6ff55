// The plan format as an agent drafting a plan needs it: short enough to sit in a prompt, complete
// enough that a first draft usually validates. The exact keys and types are appended from the zod
// schema (schemaReference.ts), so this text explains meaning and rules and never lists a key the
// schema lacks; a test compiles GUIDE_EXAMPLE and checks every schema key is named somewhere.

/** A small plan that uses the common fields; must compile without errors (tested). */
export const GUIDE_EXAMPLE = `version: 1
name: Dark mode
concurrency: 3
context: |
  TypeScript monorepo. Keep changes minimal and match the existing style.
defaults:
  agent: claude
  timeout: 20m
  retries: 1
steps:
  schema:
    prompt: Design the settings schema for dark mode and write it to docs/schema.md.
    writes: [docs/schema.md]
  backend:
    needs: [schema]
    prompt: |
      Implement the server side of this schema:
      \${{ steps.schema.output }}
    writes: ["server/**"]
  frontend:
    needs: [schema]
    agent: codex
    prompt: Add the dark mode toggle to the settings page, following docs/schema.md.
    writes: ["web/**"]
  research:
    matrix:
      tool: [aider, cline, roo]
    prompt: Research how \${{ matrix.tool }} handles themes; write docs/research/\${{ matrix.tool }}.md
    writes: ["docs/research/\${{ matrix.tool }}.md"]
  tests:
    needs: [backend, frontend, "research-*"]
    run: npm test
    isolation: shared
    retries: 2
`;

/** The hand-written part of the format reference given to a planning agent. */
export const FORMAT_GUIDE = `A Braid plan is a YAML file: a DAG of steps, each either an agent given a prompt or a shell command.
Braid starts every step as soon as the steps it needs have succeeded, in parallel up to \`concurrency\`.

Rules (the file is rejected if any is broken):
- \`version: 1\` is required; \`steps\` is required and holds at least one step.
- Step ids match ^[A-Za-z][A-Za-z0-9_-]{0,63}$ (letters, digits, _ and -, starting with a letter).
- Each step has exactly one of \`prompt\` (run by \`agent\`, default \`defaults.agent\`, else claude) or \`run\` (a shell command).
- \`needs\` lists step ids (or globs such as \`research-*\` for matrix steps) that must succeed first. No cycles, no unknown ids, no self-dependency.
- Only the keys listed below are allowed, at the level shown; \`defaults\` takes any step key except needs, matrix, run and prompt.
- \`agent\` names a preset (claude, codex, gemini, aider) or an entry of the top-level \`agents\` map (\`command\`: an argv list containing "\${{ prompt }}" as a whole element; \`input: text\` when that command reads the prompt as text, else its templates arrive as \${BRAID_…} environment references; in a text agent's command a template stands right after \`--\` or as an option's \`--name=\` value, so no value is read as an option).
- Durations (timeout, idle-timeout, retry-delay): 250ms, 90s, 20m, 1h30m, or a number of seconds.
- \`writes\` / \`reads\`: globs relative to the workspace (never ../ or absolute). Give every agent step a \`writes\` list: steps that may run at once must not write the same paths, or Braid runs them one after the other.
- \`isolation\`: worktree (default for prompt steps in a git repository: the step works in its own git worktree, merged back on success) or shared (the workspace itself; use it for commands that need the real tree, like tests or installs). worktree needs a git repository.
- \`matrix\` fans one step out: a map of key → list of values; the steps become <id>-<value> (several keys: every combination), and \${{ matrix.<key> }} holds the value.
- \`if\`: success (default), failure (runs when something it needs failed) or always. \`continue-on-error: true\` keeps a failure from skipping dependents.
- \`check\`: a shell command run after the step; a non-zero exit fails the step.
- Agent steps may set \`permission\`: read-only (research, review), edit (the default: edits files; claude and gemini run no commands), full (only where the machine is a sandbox); \`tools\` the agent may use without asking (claude "Bash(npm test:*)", gemini "run_shell_command(npm test)"; not codex); \`model\`; \`max-turns\` (claude only).

Templates, usable in prompts, run commands, env values and agent commands:
\${{ context }} (the top-level context), \${{ matrix.<key> }}, \${{ env.<NAME> }},
\${{ steps.<id>.output }} and \${{ steps.<id>.status }} (only for a step this one needs, directly or through others),
\${{ plan.name }}, \${{ run.id }}; in a prompt, \${{ attempt.previous.reason }} and \${{ attempt.previous.output }} (why a retry's previous attempt failed). A step's output is its agent's final answer, or the last 64 KiB of a command's stdout.
Inside \`run\`, templates become environment variables, so never put them inside single quotes.

Good plans: steps small enough for one agent session each; independent work in parallel steps with disjoint \`writes\`;
prompts that are self-contained (the agent sees only its prompt and the repository, plus \`context\`);
a final \`run\` step that checks the result (tests, build, lint) where the project has such commands.
Use only agents and commands that exist here.`;
