// Before a run: the agent executables its steps will start, looked up as the executor looks them
// up (the same rendering, PATH and which.ts), so a missing CLI is one sentence naming its install
// command before anything is made, not a spawn failure a step and a retry after the worktrees.
import { alternativeStep } from '../../plan/alternativeStep';
import { delimiter, isAbsolute, relative, sep } from 'node:path';
import { findExecutable, installCommand, notInstalledMessage } from '../../agents/which';
import { agentLineRange } from '../../plan/agentLine';
import type { Diagnostic, Graph, GraphStep } from '../../plan/types';
import { stepInvocation } from './render';
import type { StepStatus } from '../../status';

// What a template only the run knows (a step's output or status, the run id) renders to here:
// an executable or PATH holding it cannot be checked yet, and is left to the attempt.
const UNKNOWN = '\u0000known-at-run-time\u0000';
class Unknowns<V> extends Map<string, V> {
  override get(): V {
    return UNKNOWN as V;
  }
}

// Steps named in one message; a matrix of 50 names its first few.
const NAMED_STEPS = 5;

/** A missing executable and the selected steps that would start it, in plan order. */
export interface MissingAgent {
  readonly command: string;
  readonly steps: readonly GraphStep[];
}

/**
 * One error a missing executable among the agent commands of `selected` steps, at the first step
 * needing it, naming the install command and the steps. Only what is certain counts: a command
 * inside the workspace or relative to the step's tree, or found through a relative PATH entry,
 * may exist by the time the step starts (a need builds it, a worktree holds it).
 */
export function missingAgents(
  graph: Graph,
  selected: ReadonlySet<string>,
  workspace: string,
  baseEnv: Readonly<Record<string, string | undefined>>,
): Diagnostic[] {
  return missingAgentCommands(graph, selected, workspace, baseEnv).map(({ command, steps }) => ({
    file: graph.plan.file,
    range: steps[0]!.range,
    severity: 'error',
    code: 'agent-missing',
    message: `${notInstalledMessage(command)}; needed by ${stepList(steps)}`,
  }));
}

/**
 * For the plan as the editor shows it: one warning per missing CLI, on the first step's `agent:`
 * line (its key when it has none). A warning, not an error: the plan is fine, this machine lacks
 * the CLI (a teammate's plan may name one installed elsewhere). A run refuses with missingAgents.
 */
export function missingAgentDiagnostics(graph: Graph, text: string, missing: readonly MissingAgent[]): Diagnostic[] {
  const lines = text.split(/\r?\n/);
  return missing.map(({ command, steps }) => {
    const first = steps[0]!;
    return {
      file: graph.plan.file,
      range: agentLineRange(lines, first.range.start.line) ?? first.range,
      severity: 'warning',
      code: 'agent-missing',
      message: `${command} is not installed on this machine; needed by ${stepList(steps)}${installHint(command)}`,
    };
  });
}

function installHint(command: string): string {
  const install = installCommand(command);
  return install ? `; install it with ${install} before running the plan` : ' (not found on PATH)';
}

/** The missing executables of `missingAgents`, as data (the editor places and words them its own way). */
export function missingAgentCommands(
  graph: Graph,
  selected: ReadonlySet<string>,
  workspace: string,
  baseEnv: Readonly<Record<string, string | undefined>>,
): MissingAgent[] {
  const byCommand = new Map<string, GraphStep[]>();
  const looked = new Map<string, boolean>(); // command and PATH → missing; a matrix looks once
  for (const id of graph.order) {
    const whole = graph.steps.get(id)!;
    if (whole.kind !== 'prompt' || !selected.has(id)) continue;
    // A best-of step's alternatives may each run another agent (claude against codex against gemini).
    for (const step of whole.bestOf ? whole.bestOf.alternatives.map((a) => alternativeStep(whole, a)) : [whole]) {
      const planned = plannedCommand(graph, step, baseEnv);
      if (!planned) continue;
      const key = `${planned.command}\u0000${planned.path ?? ''}`;
      let missing = looked.get(key);
      if (missing === undefined) {
        missing =
          !findExecutable(planned.command, planned.path, workspace) &&
          treeIndependent(planned.command, planned.path, workspace);
        looked.set(key, missing);
      }
      if (!missing) continue;
      const steps = byCommand.get(planned.command);
      if (steps?.[steps.length - 1] === whole) continue; // two alternatives of one step on one agent
      if (steps) steps.push(whole);
      else byCommand.set(planned.command, [whole]);
    }
  }
  return [...byCommand].map(([command, steps]) => ({ command, steps }));
}

/** The executable and PATH the step's first attempt would use; undefined when only the run can tell. */
function plannedCommand(
  graph: Graph,
  step: GraphStep,
  baseEnv: Readonly<Record<string, string | undefined>>,
): { command: string; path: string | undefined } | undefined {
  let inv: ReturnType<typeof stepInvocation>;
  try {
    inv = stepInvocation({
      graph,
      step,
      runId: UNKNOWN,
      outputs: new Unknowns<string>(),
      statuses: new Unknowns<StepStatus>(),
      baseEnv,
    });
  } catch {
    return undefined; // a command that renders to nothing: the attempt says so
  }
  const command = inv.argv[0]!;
  const path = inv.env.PATH;
  if (command.includes(UNKNOWN) || path?.includes(UNKNOWN)) return undefined;
  return { command, path };
}

/** Whether the lookup of `command` gives the same answer in any tree the step may run in, at any time in the run. */
function treeIndependent(command: string, path: string | undefined, workspace: string): boolean {
  const hasDir = command.includes('/') || (process.platform === 'win32' && command.includes('\\'));
  if (hasDir) return isAbsolute(command) && !inside(workspace, command);
  // findExecutable's default PATH when there is none; an empty entry means the child's cwd.
  const dirs = (path ?? (process.platform === 'win32' ? '' : '/usr/bin:/bin')).split(delimiter);
  return dirs.every((d) => d !== '' && isAbsolute(d));
}

function inside(root: string, file: string): boolean {
  const rel = relative(root, file);
  return rel === '' || (!isAbsolute(rel) && rel.split(sep)[0] !== '..');
}

export function stepList(steps: readonly GraphStep[]): string {
  const ids = steps
    .slice(0, NAMED_STEPS)
    .map((s) => s.id)
    .join(', ');
  const more = steps.length > NAMED_STEPS ? ` and ${steps.length - NAMED_STEPS} more` : '';
  return `${steps.length === 1 ? 'step' : 'steps'} ${ids}${more}`;
}
