// `braid plan "GOAL"`: an agent drafts a plan file, Braid validates it (one repair round), and the
// CLI prints progress on stderr, then the path and any problems as `braid validate` does.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { DEFAULT_AGENT } from '../../core/agents/presets';
import { DEFAULT_PLAN_FILE, draftPlan, type DraftProgress } from '../../core/planning/draftPlan';
import { MAX_DRAFTS, MIN_DRAFTS } from '../../core/planning/draftRace';
import { PLANNING_PRESETS } from '../../core/planning/planningAgent';
import { formatDiagnostic } from '../../core/format';
import { keepFromDisk, planBestOf, shellWord, type BestOfIo } from './planBestOf';
import { workspaceForCwd, workspaceForPlan } from '../workspace';

export const PLAN_HELP = `  braid plan "GOAL" [options]                  an agent drafts a plan file for GOAL (nothing runs)
      --agent NAME      claude (default), codex, gemini, aider, or a command ("mytool --flag");
                        with --best-of, presets separated by commas (claude,codex,gemini) draft in turn
      --out FILE        the plan to write (default: plan.braid.yaml in the workspace)
      --force           overwrite FILE (and drafts of an earlier --best-of) if it exists
      --workspace DIR   where the agent works (default: the current git root, else this folder)
      --best-of N       N drafts (2–10) at once, each into its own file beside FILE (plan.draft-1.braid.yaml,
                        …) and validated; the valid ones are shown side by side (agent, steps, critical
                        path, parallelism, cost) and one becomes FILE: asked on a terminal, else --keep or --judge
      --keep N          keep draft N (with --best-of, or alone, with no GOAL: from an earlier --best-of)
      --judge AGENT     an agent (preset or command; it only reads) picks one valid draft and says why
      --keep-drafts     leave the drafts not kept on disk (default: removed once one is kept)
  braid plan --keep N [--out FILE] [--force]   keep draft N of an earlier --best-of left on disk
`;

export type PlanIo = BestOfIo;

/** Asks on stderr and reads a line from stdin; only when both are a terminal. */
async function askTty(question: string): Promise<string | undefined> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    // Ctrl-C or end of input at the question keeps no draft (readline would only pause).
    rl.on('SIGINT', () => rl.close());
    const closed = new Promise<undefined>((res) => rl.once('close', () => res(undefined)));
    return await Promise.race([rl.question(question), closed]);
  } finally {
    rl.close();
  }
}

const stdio: PlanIo = {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
  ...(process.stdin.isTTY && process.stderr.isTTY ? { ask: askTty } : {}),
};

/** The drafting agents of `--agent`: a comma list of presets is one agent a draft in turn; anything else is one agent. */
export function agentList(value: string): string[] {
  const parts = value.split(',').map((p) => p.trim());
  return parts.length > 1 && parts.every((p) => PLANNING_PRESETS.includes(p)) ? parts : [value];
}

function positiveInt(v: string | undefined): number | undefined {
  return v !== undefined && /^\d+$/.test(v.trim()) ? Number(v) : undefined;
}

const usage = (io: PlanIo, message: string): number => {
  io.err(`braid: ${message}\n\nusage:\n${PLAN_HELP}`);
  return 2;
};

function progress(io: PlanIo): (p: DraftProgress) => void {
  return (p) => {
    switch (p.kind) {
      case 'attempt':
        io.err(
          p.attempt === 1
            ? `braid: asking ${p.agent} to draft the plan…\n`
            : `braid: asking ${p.agent} to fix the problems (last attempt)…\n`,
        );
        break;
      case 'output':
        io.err(`  │ ${p.line.text}\n`);
        break;
      case 'waiting':
        io.err(`  … still working (${Math.round(p.elapsedMs / 1000)}s)\n`);
        break;
      case 'validated':
        io.err(
          p.errors === 0
            ? 'braid: the plan is valid\n'
            : `braid: ${p.errors} problem${p.errors === 1 ? '' : 's'} in the draft\n`,
        );
        break;
    }
  };
}

/** Runs `braid plan`; returns the exit code: 0 valid, 1 invalid or the agent failed, 2 usage or a missing agent CLI. */
export async function planCommand(args: readonly string[], io: PlanIo = stdio): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      agent: { type: 'string', default: DEFAULT_AGENT },
      out: { type: 'string' },
      workspace: { type: 'string' },
      force: { type: 'boolean', default: false },
      'best-of': { type: 'string' },
      keep: { type: 'string' },
      judge: { type: 'string' },
      'keep-drafts': { type: 'boolean', default: false },
    },
  });
  const bestOf = positiveInt(values['best-of']);
  const keep = positiveInt(values.keep);
  if (values['best-of'] !== undefined && (bestOf === undefined || bestOf < MIN_DRAFTS || bestOf > MAX_DRAFTS))
    return usage(io, `--best-of takes a number of drafts ${MIN_DRAFTS}–${MAX_DRAFTS}, got ${values['best-of']}`);
  if (values.keep !== undefined && (keep === undefined || keep < 1))
    return usage(io, `--keep takes a draft number, got ${values.keep}`);
  if (values.judge !== undefined && values.keep !== undefined)
    return usage(io, '--keep and --judge both choose the draft; give one');
  if (bestOf === undefined && positionals.length > 0) {
    for (const flag of ['keep', 'judge', 'keep-drafts'] as const)
      if (values[flag] !== undefined && values[flag] !== false) return usage(io, `--${flag} goes with --best-of N`);
  }
  if (positionals.length === 0 && keep !== undefined && bestOf === undefined && values.judge === undefined) {
    const workspace = workspaceForCwd(values.workspace);
    const file = values.out !== undefined ? resolve(values.out) : resolve(workspace, DEFAULT_PLAN_FILE);
    if (existsSync(file) && !values.force) return usage(io, `${file} exists; pass --force to overwrite it`);
    return keepFromDisk({ file, workspace, keep, force: values.force, keepDrafts: values['keep-drafts'] }, io);
  }
  if (positionals.length === 0) return usage(io, 'plan needs a GOAL');
  if (bestOf === undefined && agentList(values.agent).length > 1)
    return usage(io, `a list of agents (--agent ${values.agent}) goes with --best-of N`);
  if (positionals.length > 1) return usage(io, `plan takes one GOAL (quote it), got ${positionals.length} words`);
  const goal = positionals[0]!;
  if (goal.trim() === '') return usage(io, 'the GOAL is empty');
  const workspace = workspaceForCwd(values.workspace);
  if (!existsSync(workspace)) return usage(io, `--workspace ${values.workspace} does not exist`);
  // --out is a path the user typed, so it is relative to where they typed it.
  const file = values.out !== undefined ? resolve(values.out) : resolve(workspace, DEFAULT_PLAN_FILE);
  if (existsSync(file) && !values.force) return usage(io, `${file} exists; pass --force to overwrite it`);

  const ac = new AbortController();
  const onSignal = (): void => {
    io.err('\nbraid: canceling…\n');
    ac.abort();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  if (bestOf !== undefined) {
    try {
      return await planBestOf(
        {
          goal,
          workspace,
          file,
          count: bestOf,
          agents: agentList(values.agent),
          force: values.force,
          keepDrafts: values['keep-drafts'],
          signal: ac.signal,
          ...(keep !== undefined ? { keep } : {}),
          ...(values.judge !== undefined ? { judge: values.judge } : {}),
        },
        io,
      );
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  }
  let result;
  try {
    result = await draftPlan({
      goal,
      workspace,
      agent: values.agent,
      file,
      signal: ac.signal,
      onProgress: progress(io),
    });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  const agentProblem = result.diagnostics.find((d) => d.code === 'agent-invalid');
  if (agentProblem) return usage(io, agentProblem.message);
  // A missing agent CLI is about the machine, not a place in a file that was never written: one
  // line and exit 2, as `run` does.
  const missing = result.diagnostics.find((d) => d.code === 'agent-missing');
  if (missing) {
    io.err(`braid: ${missing.message}\n`);
    return 2;
  }
  for (const d of result.diagnostics) (d.severity === 'error' ? io.out : io.err)(`${formatDiagnostic(d)}\n`);
  if (result.ok) {
    io.out(`${result.file}\n`);
    // A file outside the workspace would run in its own folder's: the hint names this one.
    const elsewhere = workspaceForPlan(result.file) !== workspace;
    io.err(
      `braid: review it, then run it with: braid run ${shellWord(result.file)}${elsewhere ? ` --workspace ${shellWord(workspace)}` : ''}\n`,
    );
    return 0;
  }
  if (ac.signal.aborted) return 130;
  const written = result.diagnostics.every(
    (d) => d.code !== 'not-written' && d.code !== 'agent-failed' && d.code !== 'agent-missing',
  );
  io.err(
    written
      ? `braid: ${result.file} is still invalid after ${result.attempts} attempts; fix it by hand or run braid plan again\n`
      : 'braid: no plan was written\n',
  );
  return 1;
}
