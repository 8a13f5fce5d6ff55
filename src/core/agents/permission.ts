// How much an agent may do unasked: the levels a plan, a step or the run names, and the default.
// Its own file so the presets and the table of CLI flags (cliFlags.ts) both read it without a cycle.

/**
 * How much an agent may do without asking, one setting for every CLI (each names it its own way).
 * `read-only`: reads and answers, no edits, no commands. `edit` (the default): edits files in
 * its working folder, runs no command outside its sandbox. `full`: everything, unasked — only
 * where the machine itself is the sandbox.
 */
export const AGENT_PERMISSIONS = ['read-only', 'edit', 'full'] as const;
export type AgentPermission = (typeof AGENT_PERMISSIONS)[number];

// `edit` and not the CLIs' own defaults: headless, claude's `default` mode and codex's
// `read-only` sandbox refuse every edit, so a prompt step could never write what it `writes`.
// Worktree isolation and the write set then bound what the edits can reach.
export const DEFAULT_PERMISSION: AgentPermission = 'edit';
