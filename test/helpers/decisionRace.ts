// `braid approve RUN a` and `braid reject RUN a` started at the same moment on one run, as two
// users in two terminals would: the plan of issue 31 (a in review, b after it), real CLI
// processes and git, optionally beside busy loops at the lowest priority. Shared by the
// integration test and the bench (which races hundreds of pairs).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAIN, runInBackground } from './cliRun';
import type { TestRepo } from './gitRepo';
import { plan } from './planText';

export const RACE_PLAN = plan`
  version: 1
  steps:
    a:
      isolation: worktree
      review: true
      writes: [f.txt]
      run: 'echo added >> f.txt'
    b:
      needs: [a]
      run: echo b
  `;

export interface PairResult {
  readonly approve: { code: number | null; stderr: string };
  readonly reject: { code: number | null; stderr: string };
  readonly runExit: number | null;
  /** What the record says after both: the run's status, a's and b's. */
  readonly run: string;
  readonly a: string;
  readonly aReason?: string;
  readonly b: string;
  /** Whether a's line is in the working tree. */
  readonly landed: boolean;
  /** Everything agrees with exactly one winner. */
  readonly ok: boolean;
  readonly why?: string;
}

function cli(args: string[], cwd: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done) => {
    const c = spawn(process.execPath, [MAIN, ...args], { cwd, env: { ...process.env, NO_COLOR: '1' } });
    let stderr = '';
    c.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    c.on('exit', (code) => done({ code, stderr }));
  });
}

/** Two busy loops at nice 19 (the load); stop them with the returned function. */
export function cpuLoad(n = 2): () => void {
  const loops: ChildProcess[] = [];
  for (let i = 0; i < n; i++)
    loops.push(spawn('nice', ['-n', '19', 'sh', '-c', 'while :; do :; done'], { stdio: 'ignore' }));
  return () => {
    for (const l of loops) l.kill('SIGKILL');
  };
}

/**
 * One pair on a fresh run of RACE_PLAN in `r` (whose f.txt holds "base\n"): `live` races while
 * the run's process waits for the decision; otherwise the run is canceled first (a stays in review) and the pair races on the ended run.
 */
export async function racePair(
  r: TestRepo,
  planFile: string,
  cleanup: Array<() => void>,
  live: boolean,
): Promise<PairResult> {
  const run = runInBackground(r, planFile, cleanup);
  const ev = await run.when((e) => e.type === 'step' && e.id === 'a' && e.status === 'review');
  const runId = String(ev.run);
  // A canceled run leaves its change in review; the decision then lands from the record.
  if (!live) {
    run.kill('SIGINT');
    await run.exited;
  }
  const [approve, reject] = await Promise.all([
    cli(['approve', runId, 'a'], r.dir),
    cli(['reject', runId, 'a'], r.dir),
  ]);
  const runExit = await run.exited;
  const rec = JSON.parse(readFileSync(join(r.dir, '.braid', 'runs', runId, 'run.json'), 'utf8')) as {
    status: string;
    steps: Record<string, { status: string; reason?: string }>;
  };
  const landed = existsSync(join(r.dir, 'f.txt')) && readFileSync(join(r.dir, 'f.txt'), 'utf8').includes('added');
  const a = rec.steps.a!;
  const b = rec.steps.b!;
  const winners = [approve.code === 0 ? 'approve' : undefined, reject.code === 0 ? 'reject' : undefined].filter(
    (w) => w !== undefined,
  );
  let why: string | undefined;
  if (winners.length !== 1) why = `${winners.length} commands answered success`;
  else if (
    winners[0] === 'approve' &&
    !(landed && a.status === 'succeeded' && (!live || (rec.status === 'succeeded' && b.status === 'succeeded')))
  )
    why = 'approved, but the record or the tree disagrees';
  else if (
    winners[0] === 'reject' &&
    !(
      !landed &&
      a.status === 'failed' &&
      a.reason === 'rejected' &&
      (!live || (b.status === 'skipped' && rec.status === 'failed'))
    )
  )
    why = 'rejected, but the record or the tree disagrees';
  else if (!/was (approved|rejected) by /.test((winners[0] === 'approve' ? reject : approve).stderr))
    why = 'the loser was not told who decided';
  return {
    approve,
    reject,
    runExit,
    run: rec.status,
    a: a.status,
    ...(a.reason ? { aReason: a.reason } : {}),
    b: b.status,
    landed,
    ok: why === undefined,
    ...(why ? { why } : {}),
  };
}
