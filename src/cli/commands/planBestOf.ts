// `braid plan GOAL --best-of N`: N drafts at once (draftRace), shown side by side, then one kept —
// by --keep, by a --judge agent, by the user on a terminal — or left on disk with the command that
// keeps one later (`braid plan --keep N`, no GOAL).
import { unlink } from 'node:fs/promises';
import { relative } from 'node:path';
import { formatDiagnostic } from '../../core/format';
import { compilePlanFile } from '../../core/plan/compile';
import { isGitWorkspace } from '../../core/engine/runPlan';
import { comparisonTable, draftShape, type ComparedDraft } from '../../core/planning/compareDrafts';
import { findDrafts, keepDraft } from '../../core/planning/draftFiles';
import type { DraftProgress } from '../../core/planning/draftPlan';
import { draftRace, type RaceDraft } from '../../core/planning/draftRace';
import { judgeAgent, judgeDrafts } from '../../core/planning/judge';
import type { PlanningAgentSpec } from '../../core/planning/planningAgent';
import { workspaceForPlan } from '../workspace';

export interface BestOfIo {
  readonly out: (s: string) => void;
  readonly err: (s: string) => void;
  /** Asks on a terminal; absent when nobody can answer (not a TTY). */
  readonly ask?: (question: string) => Promise<string | undefined>;
}

export interface BestOfRequest {
  readonly goal: string;
  readonly workspace: string;
  /** The plan file the kept draft becomes. */
  readonly file: string;
  readonly count: number;
  readonly agents: readonly PlanningAgentSpec[];
  readonly judge?: string;
  readonly keep?: number;
  readonly keepDrafts: boolean;
  readonly force: boolean;
  readonly signal: AbortSignal;
}

/** `p` as one shell word (quoted only when it needs to be), for a command the user copies. */
export function shellWord(p: string): string {
  return /^[\w@%+=:,./-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function progress(io: BestOfIo, agents: Map<number, string>): (draft: number, p: DraftProgress) => void {
  return (draft, p) => {
    const who = `draft ${draft}${agents.get(draft) ? ` (${agents.get(draft)})` : ''}`;
    switch (p.kind) {
      case 'attempt':
        agents.set(draft, p.agent);
        io.err(
          p.attempt === 1
            ? `braid: ${p.agent} drafts plan ${draft}…\n`
            : `braid: ${who}: asking ${p.agent} to fix the problems (last attempt)…\n`,
        );
        break;
      case 'output':
        io.err(`  ${draft} │ ${p.line.text}\n`);
        break;
      case 'waiting':
        io.err(`  ${draft} … still working (${Math.round(p.elapsedMs / 1000)}s)\n`);
        break;
      case 'validated':
        io.err(p.errors === 0 ? `braid: ${who} is valid\n` : `braid: ${who}: ${plural(p.errors, 'problem')}\n`);
        break;
    }
  };
}

function compared(d: RaceDraft): ComparedDraft {
  const problem = d.result.ok ? undefined : d.result.diagnostics.find((x) => x.severity === 'error');
  return {
    index: d.index,
    agent: d.agent,
    file: d.result.file,
    ok: d.result.ok,
    ...(d.shape ? { shape: d.shape } : {}),
    ...(problem ? { problem: problem.message } : {}),
    ...(d.result.costUsd !== undefined ? { costUsd: d.result.costUsd } : {}),
  };
}

/** The command that keeps draft N later, as the user would type it. */
function keepCommand(r: Pick<BestOfRequest, 'file' | 'workspace' | 'force' | 'keepDrafts'>, n: number | 'N'): string {
  return `braid plan --keep ${n} --out ${shellWord(relative(process.cwd(), r.file) || r.file)}${r.force ? ' --force' : ''}${r.keepDrafts ? ' --keep-drafts' : ''}`;
}

function runHint(io: BestOfIo, file: string, workspace: string): void {
  const elsewhere = workspaceForPlan(file) !== workspace;
  io.err(
    `braid: review it, then run it with: braid run ${shellWord(file)}${elsewhere ? ` --workspace ${shellWord(workspace)}` : ''}\n`,
  );
}

async function keep(io: BestOfIo, r: BestOfRequest, draft: { index: number; file: string }): Promise<number> {
  const kept = await keepDraft(r.file, draft.file, { keepOthers: r.keepDrafts });
  io.err(
    `braid: kept draft ${draft.index} as ${kept.file}${kept.others.length === 0 ? '' : r.keepDrafts ? `; the other drafts stay: ${kept.others.join(', ')}` : `; removed ${plural(kept.others.length, 'other draft')}`}\n`,
  );
  io.out(`${kept.file}\n`);
  runHint(io, kept.file, r.workspace);
  return 0;
}

/** Asks for a draft number among `valid` until one is given; undefined when the user keeps none. */
async function askDraft(
  ask: NonNullable<BestOfIo['ask']>,
  valid: readonly number[],
  io: BestOfIo,
): Promise<number | undefined> {
  for (;;) {
    const a = (await ask(`keep which draft? (${valid.join(', ')}; empty keeps none) `))?.trim();
    if (a === undefined || a === '') return undefined;
    const n = Number(a);
    if (valid.includes(n)) return n;
    io.err(`braid: ${JSON.stringify(a)} is not a valid draft; answer one of ${valid.join(', ')}\n`);
  }
}

/** Runs the race and the choice; the exit code: 0 kept (or valid drafts left to choose from), 1 none valid or no usable choice, 2 an agent that cannot run, 130 canceled. */
export async function planBestOf(r: BestOfRequest, io: BestOfIo): Promise<number> {
  const env = process.env;
  if (r.judge !== undefined) {
    const j = judgeAgent(r.judge, { cwd: r.workspace, envPath: env.PATH });
    if ('error' in j) {
      io.err(`braid: ${j.error}\n`);
      return 2;
    }
  }
  // Drafts an earlier run left are the user's to keep or drop: never mixed with this run's.
  const stale = await findDrafts(r.file);
  if (stale.length > 0 && !r.force) {
    io.err(
      `braid: ${stale[0]!.file}${stale.length > 1 ? ` and ${plural(stale.length - 1, 'other draft')}` : ''} exist${stale.length > 1 ? '' : 's'} (left by an earlier braid plan --best-of); keep one with: ${keepCommand(r, 'N')}, remove them, or pass --force\n`,
    );
    return 2;
  }
  for (const d of stale) await unlink(d.file);
  const agents = new Map<number, string>();
  const race = await draftRace({
    goal: r.goal,
    workspace: r.workspace,
    file: r.file,
    count: r.count,
    agents: r.agents,
    signal: r.signal,
    onProgress: progress(io, agents),
  });
  if (race.problem) {
    io.err(`braid: ${race.problem.message}\n`);
    return 2;
  }
  if (r.signal.aborted) return 130;
  const drafts = race.drafts;
  io.err(`\n${comparisonTable(drafts.map(compared), (f) => relative(process.cwd(), f) || f)}`);
  const valid = drafts.filter((d) => d.result.ok);
  // An invalid draft's problems, as `braid validate` prints them; its file (when written) stays
  // only with --keep-drafts, like any draft not kept.
  for (const d of drafts.filter((x) => !x.result.ok))
    for (const diag of d.result.diagnostics) io.err(`${formatDiagnostic(diag)}\n`);
  if (valid.length === 0) {
    io.err(
      `braid: none of the ${r.count} drafts is valid; they stay for you to fix by hand, or run braid plan again\n`,
    );
    return 1;
  }
  const numbers = valid.map((d) => d.index);
  const byIndex = (n: number) => valid.find((d) => d.index === n)!;
  const asFile = (d: RaceDraft) => ({ index: d.index, file: d.result.file });
  if (r.keep !== undefined) {
    if (!numbers.includes(r.keep)) {
      io.err(
        `braid: --keep ${r.keep}: draft ${r.keep} is not valid (valid: ${numbers.join(', ')}); keep one with: ${keepCommand(r, 'N')}\n`,
      );
      for (const d of valid) io.out(`${d.result.file}\n`);
      return 1;
    }
    return keep(io, r, asFile(byIndex(r.keep)));
  }
  let judgeFailed = false;
  if (r.judge !== undefined && valid.length > 1) {
    io.err(`braid: asking ${r.judge} to judge drafts ${numbers.join(', ')}…\n`);
    const j = await judgeDrafts({
      goal: r.goal,
      workspace: r.workspace,
      agent: r.judge,
      signal: r.signal,
      drafts: valid.map((d) => ({
        index: d.index,
        agent: d.agent,
        file: d.result.file,
        shape: d.shape ?? draftShape(d.result.graph!),
      })),
      onLine: (line) => io.err(`  judge │ ${line.text}\n`),
    });
    if (r.signal.aborted) return 130;
    if (j.ok) {
      io.err(`braid: the judge (${j.agent}) picks draft ${j.pick}: ${j.reason}\n`);
      return keep(io, r, asFile(byIndex(j.pick)));
    }
    io.err(`braid: the judge's answer is not usable: ${j.error}\n`);
    judgeFailed = true;
  } else if (valid.length === 1) {
    io.err(`braid: only draft ${numbers[0]} is valid${r.judge !== undefined ? ' (nothing to judge)' : ''}\n`);
    return keep(io, r, asFile(valid[0]!));
  }
  if (io.ask) {
    const n = await askDraft(io.ask, numbers, io);
    if (n !== undefined) return keep(io, r, asFile(byIndex(n)));
  }
  for (const d of valid) io.out(`${d.result.file}\n`);
  io.err(
    `braid: ${plural(valid.length, 'valid draft')} left to choose from; keep one with: ${keepCommand(r, 'N')} (N one of ${numbers.join(', ')})\n`,
  );
  return judgeFailed ? 1 : 0;
}

/** `braid plan --keep N` with no GOAL: keeps draft N of an earlier best-of, if it is still valid. */
export async function keepFromDisk(
  r: Pick<BestOfRequest, 'file' | 'workspace' | 'force' | 'keepDrafts'> & { readonly keep: number },
  io: BestOfIo,
): Promise<number> {
  const onDisk = await findDrafts(r.file);
  const draft = onDisk.find((d) => d.index === r.keep);
  if (!draft) {
    io.err(
      `braid: no draft ${r.keep} of ${r.file}${onDisk.length ? ` (drafts: ${onDisk.map((d) => d.index).join(', ')})` : ' (no drafts beside it; braid plan GOAL --best-of N makes them)'}\n`,
    );
    return 1;
  }
  const compiled = await compilePlanFile(draft.file, { isGit: await isGitWorkspace(r.workspace) });
  if (!compiled.graph) {
    for (const d of compiled.diagnostics) io.out(`${formatDiagnostic(d)}\n`);
    io.err(`braid: draft ${r.keep} is not a valid plan; fix it or keep another\n`);
    return 1;
  }
  const kept = await keepDraft(r.file, draft.file, { keepOthers: r.keepDrafts });
  io.err(
    `braid: kept draft ${r.keep} as ${kept.file}${kept.others.length === 0 ? '' : r.keepDrafts ? '; the other drafts stay' : `; removed ${plural(kept.others.length, 'other draft')}`}\n`,
  );
  io.out(`${kept.file}\n`);
  runHint(io, kept.file, r.workspace);
  return 0;
}
