// `braid plan "GOAL"`: an agent drafts a plan file, Braid validates it (one repair round), and the
// CLI prints progress on stderr, then the path and any problems as `braid validate` does.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_AGENT } from '../core/agents/presets';
import { DEFAULT_PLAN_FILE, draftPlan, type DraftProgress } from '../core/planning/draftPlan';
import { formatDiagnostic } from '../core/format';
import { workspaceForCwd, workspaceForPlan } from './workspace';

/** `p` as one shell word (quoted only when it needs to be), for a command the user copies. */
function shellWord(p: string): string {
  return /^[\w@%+=:,./-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`;
}

export const PLAN_HELP = `  braid plan "GOAL" [options]                  an agent drafts a plan file for GOAL (nothing runs)
      --agent NAME      claude (default), codex, gemini, aider, or a command ("mytool --flag")
      --out FILE        the plan to write (default: plan.braid.yaml in the workspace)
      --force           overwrite FILE if it exists
      --workspace DIR   where the agent works (default: the current git root, else this folder)
`;

export interface PlanIo {
  readonly out: (s: string) => void;
  readonly err: (s: string) => void;
}

const stdio: PlanIo = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) };

const usage = (io: PlanIo, message: string): number => {
  io.err(`braid: ${message}\n\nusage:\n${PLAN_HELP}`);
  return 2;
};

function progress(io: PlanIo): (p: DraftProgress) => void {
  return (p) => {
    switch (p.kind) {
      case 'attempt': io.err(p.attempt === 1 ? `braid: asking ${p.agent} to draft the plan…\n` : `braid: asking ${p.agent} to fix the problems (last attempt)…\n`); break;
      case 'output': io.err(`  │ ${p.line.text}\n`); break;
      case 'waiting': io.err(`  … still working (${Math.round(p.elapsedMs / 1000)}s)\n`); break;
      case 'validated': io.err(p.errors === 0 ? 'braid: the plan is valid\n' : `braid: ${p.errors} problem${p.errors === 1 ? '' : 's'} in the draft\n`); break;
    }
  };
}

/** Runs `braid plan`; returns the exit code: 0 valid, 1 invalid or the agent failed, 2 usage or a missing agent CLI. */
export async function planCommand(args: readonly string[], io: PlanIo = stdio): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args], allowPositionals: true, strict: true,
    options: {
      agent: { type: 'string', default: DEFAULT_AGENT }, out: { type: 'string' },
      workspace: { type: 'string' }, force: { type: 'boolean', default: false },
    },
  });
  if (positionals.length === 0) return usage(io, 'plan needs a GOAL');
  if (positionals.length > 1) return usage(io, `plan takes one GOAL (quote it), got ${positionals.length} words`);
  const goal = positionals[0]!;
  if (goal.trim() === '') return usage(io, 'the GOAL is empty');
  const workspace = workspaceForCwd(values.workspace);
  if (!existsSync(workspace)) return usage(io, `--workspace ${values.workspace} does not exist`);
  // --out is a path the user typed, so it is relative to where they typed it.
  const file = values.out !== undefined ? resolve(values.out) : resolve(workspace, DEFAULT_PLAN_FILE);
  if (existsSync(file) && !values.force) return usage(io, `${file} exists; pass --force to overwrite it`);

  const ac = new AbortController();
  const onSignal = (): void => { io.err('\nbraid: canceling…\n'); ac.abort(); };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let result;
  try {
    result = await draftPlan({ goal, workspace, agent: values.agent, file, signal: ac.signal, onProgress: progress(io) });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  const agentProblem = result.diagnostics.find((d) => d.code === 'agent-invalid');
  if (agentProblem) return usage(io, agentProblem.message);
  // A missing agent CLI is about the machine, not a place in a file that was never written: one
  // line and exit 2, as `run` does.
  const missing = result.diagnostics.find((d) => d.code === 'agent-missing');
  if (missing) { io.err(`braid: ${missing.message}\n`); return 2; }
  for (const d of result.diagnostics) (d.severity === 'error' ? io.out : io.err)(`${formatDiagnostic(d)}\n`);
  if (result.ok) {
    io.out(`${result.file}\n`);
    // A file outside the workspace would run in its own folder's: the hint names this one.
    const elsewhere = workspaceForPlan(result.file) !== workspace;
    io.err(`braid: review it, then run it with: braid run ${shellWord(result.file)}${elsewhere ? ` --workspace ${shellWord(workspace)}` : ''}\n`);
    return 0;
  }
  if (ac.signal.aborted) return 130;
  const written = result.diagnostics.every((d) => d.code !== 'not-written' && d.code !== 'agent-failed' && d.code !== 'agent-missing');
  io.err(written
    ? `braid: ${result.file} is still invalid after ${result.attempts} attempts; fix it by hand or run braid plan again\n`
    : 'braid: no plan was written\n');
  return 1;
}
