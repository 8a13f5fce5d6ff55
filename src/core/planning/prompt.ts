// The prompts a planning agent receives: the first (goal, format, workspace, agents, where to
// write) and, once, a repair prompt carrying the validator's problems. Pure text, so tests read
// exactly what an agent would.
import { FORMAT_GUIDE, GUIDE_EXAMPLE } from './formatGuide';
import { formatLayout, type WorkspaceLayout } from './layout';
import { schemaReference } from './schemaReference';

export interface AgentInfo {
  readonly name: string;
  /** Whether its CLI was found on PATH; unknown when absent. */
  readonly installed?: boolean;
  readonly pool?: string;
}

export interface DraftContext {
  /** The plan file's path as the agent should write it (relative to its working folder when inside). */
  readonly file: string;
  readonly layout: WorkspaceLayout;
  readonly agents: readonly AgentInfo[];
}

/** The line that names the output file; agents (and the test fixture) look for it. */
export const WRITE_LINE = 'Write the plan to this file:';

function agentLines(agents: readonly AgentInfo[]): string {
  if (agents.length === 0) return '(none known; use `run` steps, or define one under `agents`)';
  return agents
    .map((a) => {
      const notes = [
        a.installed === true ? 'installed' : a.installed === false ? 'NOT installed here: do not use it' : undefined,
        a.pool ? `pool ${a.pool}` : undefined,
      ].filter(Boolean);
      return `- ${a.name}${notes.length ? ` (${notes.join(', ')})` : ''}`;
    })
    .join('\n');
}

function formatSection(): string {
  return [
    '## The plan format',
    FORMAT_GUIDE,
    '',
    schemaReference(),
    '',
    'Example:',
    '```yaml',
    GUIDE_EXAMPLE.trimEnd(),
    '```',
  ].join('\n');
}

/** The prompt that asks an agent to draft a plan for `goal`. */
export function draftPrompt(goal: string, context: DraftContext): string {
  const layoutNote =
    context.layout.source === 'git'
      ? 'The workspace is a git repository (files git tracks or would track):'
      : 'The workspace is not a git repository, so `isolation: worktree` is not available; its files:';
  return (
    [
      'You are drafting a Braid plan file: a DAG of agent and shell steps that Braid will run in parallel later, after the user reviews it.',
      'Do not carry out the goal yourself and do not change any file other than the plan file.',
      '',
      '## Goal',
      goal.trim(),
      '',
      '## Output',
      `${WRITE_LINE} ${context.file}`,
      'Write the whole file (YAML, no Markdown fences) and nothing else. Read the repository as much as you need to make the steps concrete (real paths, real commands).',
      '',
      formatSection(),
      '',
      '## Agents available to steps',
      agentLines(context.agents),
      '',
      '## Workspace layout',
      layoutNote,
      formatLayout(context.layout),
    ].join('\n') + '\n'
  );
}

export interface RepairInput {
  /** The plan file's problems, one a line, as `FILE:LINE:COL: severity: message`. */
  readonly problems: readonly string[];
  /** What the file holds now; absent when the agent wrote nothing. */
  readonly content?: string | undefined;
}

/** The second and last prompt: the same task, with what was wrong with the first answer. */
export function repairPrompt(goal: string, context: DraftContext, input: RepairInput): string {
  const what =
    input.content === undefined
      ? [`Your previous attempt did not write ${context.file}. Write it now.`]
      : [
          `Your previous attempt wrote ${context.file}, but Braid rejected it. Fix every problem below by editing the file in place (line and column numbers are 1-based):`,
          ...input.problems.map((p) => `  ${p}`),
          '',
          'The file currently holds:',
          '```yaml',
          input.content.trimEnd(),
          '```',
        ];
  return [...what, '', draftPrompt(goal, context)].join('\n');
}
