// `braid runs` (what runs there are, and the worktrees and braid/* branches they kept) and
// `braid clean RUN-ID | --all | --older-than DURATION` (removes what runs kept).
import { costText } from '../../core/cost/costText';
import { parseArgs } from 'node:util';
import { gitOk } from '../../core/exec/git';
import { cleanRun } from '../../core/engine/isolation/cleanRun';
import { isGitRepo, listBraidWorktrees } from '../../core/engine/isolation/worktree';
import { RunStore } from '../../core/engine/records/runStore';
import type { RunSummary } from '../../core/engine/records/runRecord';
import { parseDuration } from '../../core/plan/duration';
import { workspaceForCwd } from '../workspace';

export class HousekeepingUsage extends Error {}

interface Io {
  out(s: string): void;
  err(s: string): void;
}

interface Kept {
  worktrees: Map<string, string[]>;
  branches: Map<string, string[]>;
}

/** Braid's worktrees (by run: their paths) and `braid/<run>/<step>` branches (by run: their steps). */
async function keptWork(root: string): Promise<Kept> {
  const kept: Kept = { worktrees: new Map(), branches: new Map() };
  if ((await isGitRepo(root)) === undefined) return kept;
  for (const w of await listBraidWorktrees(root))
    kept.worktrees.set(w.runId, [...(kept.worktrees.get(w.runId) ?? []), w.path]);
  const refs = (await gitOk(['for-each-ref', '--format=%(refname:short)', 'refs/heads/braid/'], { cwd: root }))
    .split('\n')
    .filter(Boolean);
  for (const ref of refs) {
    const m = /^braid\/([^/]+)\/(.+)$/.exec(ref);
    if (m) kept.branches.set(m[1]!, [...(kept.branches.get(m[1]!) ?? []), m[2]!]);
  }
  return kept;
}

const counts = (r: RunSummary): string =>
  [...Object.entries(r.counts), ['reverted', r.reverted ?? 0] as const]
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${n} ${s}`)
    .join(', ');

/** `braid runs [--json]`: newest first. */
export async function runsCommand(args: readonly string[], io: Io): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: { json: { type: 'boolean', default: false }, workspace: { type: 'string' } },
  });
  const root = workspaceForCwd(values.workspace);
  const store = new RunStore(root);
  await store.markInterrupted();
  const runs = await store.list();
  const kept = await keptWork(root);
  const orphans = [...new Set([...kept.worktrees.keys(), ...kept.branches.keys()])].filter(
    (id) => !runs.some((r) => r.id === id),
  );
  if (values.json) {
    const row = (id: string) => ({
      worktrees: kept.worktrees.get(id) ?? [],
      branches: (kept.branches.get(id) ?? []).map((s) => `braid/${id}/${s}`),
    });
    io.out(
      JSON.stringify(
        {
          runs: runs.map((r) => ({ ...r, kept: row(r.id) })),
          unrecorded: orphans.map((id) => ({ id, kept: row(id) })),
        },
        null,
        2,
      ) + '\n',
    );
    return 0;
  }
  if (runs.length === 0 && orphans.length === 0) {
    io.err('braid: no runs here\n');
    return 0;
  }
  for (const r of runs) {
    io.out(
      `${r.id}  ${r.status.padEnd(11)} ${r.planName} · ${counts(r)}${r.costUsd !== undefined ? ` · ${costText(r.costUsd, r.costSource)}` : ''}\n`,
    );
    const trees = kept.worktrees.get(r.id) ?? [];
    const branches = kept.branches.get(r.id) ?? [];
    for (const p of trees) io.out(`    kept worktree ${p}\n`);
    if (branches.length > 0) io.out(`    kept branches ${branches.map((s) => `braid/${r.id}/${s}`).join(' ')}\n`);
  }
  for (const id of orphans) {
    io.out(`${id}  (no record)\n`);
    for (const p of kept.worktrees.get(id) ?? []) io.out(`    kept worktree ${p}\n`);
    const branches = kept.branches.get(id) ?? [];
    if (branches.length > 0) io.out(`    kept branches ${branches.map((s) => `braid/${id}/${s}`).join(' ')}\n`);
  }
  const trees = [...kept.worktrees.values()].flat().length;
  const branches = [...kept.branches.values()].flat().length;
  if (trees + branches > 0) {
    io.err(
      `${trees} kept worktree${trees === 1 ? '' : 's'}, ${branches} braid/* branch${branches === 1 ? '' : 'es'}; braid clean RUN-ID, --all or --older-than DURATION removes them\n`,
    );
  }
  return 0;
}

/** `7d`, `12h`, `30m`, or any plan duration (`1h30m`). */
export function parseAge(text: string): number | undefined {
  const days = /^(\d+(?:\.\d+)?)d$/.exec(text.trim());
  return days ? Number(days[1]) * 86_400_000 : parseDuration(text);
}

/** `braid clean RUN-ID | --all | --older-than DURATION`. */
export async function cleanCommand(args: readonly string[], io: Io, now = Date.now()): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      workspace: { type: 'string' },
      all: { type: 'boolean', default: false },
      'older-than': { type: 'string' },
    },
  });
  const root = workspaceForCwd(values.workspace);
  const olderThan = values['older-than'];
  const modes = [positionals.length > 0, values.all, olderThan !== undefined].filter(Boolean).length;
  if (modes !== 1 || positionals.length > 1)
    throw new HousekeepingUsage('clean needs one RUN-ID, --all or --older-than DURATION');
  let ids: string[];
  if (positionals.length === 1) ids = [positionals[0]!];
  else {
    const age = olderThan === undefined ? 0 : parseAge(olderThan);
    if (age === undefined)
      throw new HousekeepingUsage(`--older-than must be a duration like 7d, 12h or 30m, got ${olderThan}`);
    const store = new RunStore(root);
    await store.markInterrupted();
    ids = (await store.list())
      .filter((r) => r.status !== 'running' && now - Date.parse(r.endedAt ?? r.createdAt) >= age)
      .map((r) => r.id);
  }
  let failed = 0;
  let cleaned = 0;
  for (const id of ids) {
    const r = await cleanRun(root, id);
    if (!r.ok) {
      io.err(`braid: ${r.message}\n`);
      failed++;
      continue;
    }
    if (r.removed.length > 0) {
      cleaned++;
      io.err(`removed the worktrees and branches of ${id}: ${r.removed.join(', ')}\n`);
    } else if (positionals.length === 1) io.err(`nothing kept for ${id}\n`);
  }
  if (positionals.length === 0)
    io.err(`${cleaned} run${cleaned === 1 ? '' : 's'} cleaned of ${ids.length} considered\n`);
  return failed > 0 ? 1 : 0;
}
