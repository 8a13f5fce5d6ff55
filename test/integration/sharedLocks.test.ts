// Write-set locks across real engine processes: runs of two processes in one workspace, each with
// runPlan's default lock gate, serialise on overlapping writes and overlap on disjoint ones (read
// from the start and end times in run.json), and a holder killed with -9 does not block for ever.
import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { runPlan } from '../../src/core/engine/runPlan';
import type { RunRecord } from '../../src/core/engine/records/runRecord';
import type { EngineEvent } from '../../src/core/engine/types';
import { sharedLocks } from '../../src/core/engine/locks/sharedLocks';
import { LockTable } from '../../src/core/engine/locks/lockTable';
import type { GraphStep } from '../../src/core/plan/types';
import { goneSoon } from '../helpers/processes';
import { plan } from '../helpers/planText';

const RUNNER = join(__dirname, '..', 'fixtures', 'locks', 'run.ts');
const REPO = join(__dirname, '..', '..');

interface Engine {
  child: ChildProcess;
  events: EngineEvent[];
  /** Resolves with the first event (past or future) that matches. */
  until(pred: (e: EngineEvent) => boolean): Promise<EngineEvent>;
  exit: Promise<number | null>;
}

function engine(plan: string, ws: string): Engine {
  const child = spawn(process.execPath, ['--import', 'tsx', RUNNER, plan, ws], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const events: EngineEvent[] = [];
  const waiters: Array<{ pred: (e: EngineEvent) => boolean; resolve(e: EngineEvent): void }> = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const e = JSON.parse(line) as EngineEvent;
    events.push(e);
    for (const w of waiters.splice(0)) {
      if (w.pred(e)) w.resolve(e);
      else waiters.push(w);
    }
  });
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    events,
    exit,
    until: (pred) => {
      const seen = events.find(pred);
      return seen ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ pred, resolve }));
    },
  };
}

const isStep = (id: string, status: string) => (e: EngineEvent) =>
  e.type === 'step' && e.id === id && e.status === status;
const loadRun = (ws: string, id: string) =>
  JSON.parse(readFileSync(join(ws, '.braid', 'runs', id, 'run.json'), 'utf8')) as RunRecord;
const lockFiles = (ws: string) =>
  existsSync(join(ws, '.braid', 'locks'))
    ? readdirSync(join(ws, '.braid', 'locks')).filter((n) => n.endsWith('.json'))
    : [];

function span(rec: RunRecord, step: string): { start: number; end: number } {
  const s = rec.steps[step]!;
  assert.equal(s.status, 'succeeded', `${step}: ${s.message ?? ''}`);
  return { start: Date.parse(s.startedAt!), end: Date.parse(s.endedAt!) };
}

// A shell loop that waits for a file another process creates, bounded so a bug fails instead of hanging.
const waitFile = (f: string) =>
  `i=0; while [ ! -f ${f} ] && [ $i -lt 1500 ]; do sleep 0.02; i=$((i+1)); done; [ -f ${f} ]`;

describe('shared locks across engine processes', function () {
  this.timeout(60_000);
  let ws: string;
  const children: Engine[] = [];
  const lockPlan = (name: string, step: string, writes: string, run: string): string => {
    const file = join(ws, `${name}.braid.yaml`);
    writeFileSync(
      file,
      plan`
        version: 1
        steps:
          ${step}:
            run: '${run}'
            writes: ["${writes}"]
        `,
    );
    return file;
  };
  const start = (file: string): Engine => {
    const e = engine(file, ws);
    children.push(e);
    return e;
  };

  beforeEach(() => {
    ws = mkdtempSync(join(tmpdir(), 'braid-shared-locks-'));
  });
  afterEach(async () => {
    for (const c of children.splice(0)) {
      if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
      await c.exit;
    }
    rmSync(ws, { recursive: true, force: true });
  });

  it('overlapping writes in two processes run one after the other; the waiter names the holder’s run and step', async () => {
    const a = start(lockPlan('a', 'wide', 'src/**', `touch a.started; ${waitFile('go')}`));
    const aRun = (await a.until((e) => e.type === 'run')).run;
    await a.until(isStep('wide', 'running'));
    const b = start(lockPlan('b', 'narrow', 'src/a.ts', 'echo narrow'));
    const lock = await b.until((e) => e.type === 'lock');
    assert.ok(lock.type === 'lock');
    assert.equal(lock.id, 'narrow');
    assert.equal(lock.waitingFor, `${aRun}/wide (pid ${a.child.pid})`);
    assert.deepEqual(lock.paths, ['src/a.ts', 'src/**']);
    assert.ok(!b.events.some(isStep('narrow', 'running')), 'it waits while the other process holds the lock');
    writeFileSync(join(ws, 'go'), '');
    assert.deepEqual(await Promise.all([a.exit, b.exit]), [0, 0]);
    const bRun = b.events[0]!.run;
    const wide = span(loadRun(ws, aRun), 'wide');
    const narrow = span(loadRun(ws, bRun), 'narrow');
    assert.ok(wide.end <= narrow.start, `narrow started ${narrow.start - wide.end} ms after wide ended`);
    assert.equal(b.events.filter((e) => e.type === 'lock').length, 1, 'one lock event per wait');
    assert.deepEqual(lockFiles(ws), []);
  });

  it('disjoint writes in two processes run at the same time', async () => {
    // Each step finishes only once the other has started: they can only succeed side by side.
    const a = start(lockPlan('a', 'src', 'src/**', `touch a.started; ${waitFile('b.started')}`));
    const b = start(lockPlan('b', 'docs', 'docs/**', `touch b.started; ${waitFile('a.started')}`));
    assert.deepEqual(await Promise.all([a.exit, b.exit]), [0, 0]);
    const src = span(loadRun(ws, a.events[0]!.run), 'src');
    const docs = span(loadRun(ws, b.events[0]!.run), 'docs');
    assert.ok(src.start < docs.end && docs.start < src.end, 'their recorded runs overlap');
    assert.ok(!a.events.some((e) => e.type === 'lock') && !b.events.some((e) => e.type === 'lock'));
  });

  it('a holder killed with -9 leaves a stale lock file that the next run breaks', async () => {
    const a = start(lockPlan('a', 'wide', 'src/**', 'echo $$ > a.pid; exec sleep 60'));
    const aRun = (await a.until((e) => e.type === 'run')).run;
    await a.until(isStep('wide', 'running'));
    // Once its step's shell is up (so the engine is mid-run, not mid-spawn).
    const pidFile = join(ws, 'a.pid');
    await new Promise<void>((resolve, reject) => {
      const look = (n: number): unknown =>
        existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n')
          ? resolve()
          : n > 1000
            ? reject(new Error('the step never started'))
            : setTimeout(() => look(n + 1), 20);
      look(0);
    });
    const [stale] = lockFiles(ws);
    assert.ok(stale, 'the holder’s lock file exists');
    const watchdog = (
      JSON.parse(readFileSync(join(ws, '.braid', 'locks', stale), 'utf8')) as { watchdog?: { pid: number } }
    ).watchdog;
    assert.ok(watchdog, 'the lock names the holder’s watchdog');
    a.child.kill('SIGKILL');
    await a.exit;
    // Its step is a process group of its own, which the holder's watchdog ends (watchdog.ts).
    assert.ok(await goneSoon(Number(readFileSync(pidFile, 'utf8'))), 'the step ended with its engine');
    assert.ok(await goneSoon(watchdog.pid), 'the watchdog exits once the steps are gone');
    assert.deepEqual(lockFiles(ws), [stale], 'kill -9 runs no exit hook');

    const events: EngineEvent[] = [];
    const outcome = await runPlan({
      planFile: lockPlan('b', 'narrow', 'src/a.ts', 'echo narrow'),
      workspace: ws,
      onEvent: (e) => events.push(e),
    });
    assert.ok(outcome.ok);
    assert.equal(outcome.record.steps.narrow!.status, 'succeeded');
    assert.ok(!events.some((e) => e.type === 'lock'), 'a dead holder blocks nobody');
    assert.deepEqual(lockFiles(ws), [], 'the stale file was broken and our own released');
    assert.equal(loadRun(ws, aRun).status, 'interrupted');
  });
});

describe('sharedLocks within one process', () => {
  let ws: string;
  beforeEach(() => {
    ws = mkdtempSync(join(tmpdir(), 'braid-shared-locks-'));
  });
  afterEach(() => rmSync(ws, { recursive: true, force: true }));
  const step = (id: string, writes: string[]): GraphStep => ({ id, writes, reads: [] }) as unknown as GraphStep;

  it('names a holder of this run by step id and one of another run by run/step; announces only real releases', async () => {
    const table = new LockTable();
    const one = sharedLocks({ root: ws, runId: 'r1', table });
    const two = sharedLocks({ root: ws, runId: 'r2', table });
    let wakes = 0;
    const sub = one.onRelease(() => wakes++);
    const held = await one.tryAcquire(step('a', ['src/**']));
    assert.ok(held.ok);
    const same = await one.tryAcquire(step('b', ['src/a.ts']));
    assert.ok(!same.ok && same.holder === 'a');
    const other = await two.tryAcquire(step('c', ['src/b.ts']));
    assert.ok(!other.ok && other.holder === 'r1/a');
    assert.equal(wakes, 0, 'refusals announce nothing');
    assert.equal(lockFiles(ws).length, 1, 'a granted lock is mirrored on disk');
    held.release();
    assert.equal(wakes, 1);
    sub.dispose();
    await one.close();
    await two.close();
    assert.deepEqual(lockFiles(ws), []);
  });

  it('a step refused by another process is retried when that lock file goes, not before', async () => {
    // A holder file of a live process that is not this one (our parent), planted by hand.
    const planted = join(ws, '.braid', 'locks', 'other.json');
    mkdirSync(dirname(planted), { recursive: true });
    writeFileSync(
      planted,
      JSON.stringify({
        pid: process.ppid,
        hostname: hostname(),
        run: 'r0',
        step: 'holder',
        startedAt: new Date().toISOString(),
        writes: ['src/**'],
        reads: [],
      }),
    );
    // A poll far beyond the test's life: only the file event can wake it.
    const gate = sharedLocks({ root: ws, runId: 'r1', table: new LockTable(), pollMs: 600_000 });
    let wakes = 0;
    gate.onRelease(() => wakes++);
    const refused = await gate.tryAcquire(step('x', ['src/x.ts']));
    assert.ok(!refused.ok);
    assert.equal(refused.holder, `r0/holder (pid ${process.ppid})`);
    const mine = await gate.tryAcquire(step('y', ['docs/**']));
    assert.ok(mine.ok);
    mine.release(); // its own release is announced once, by the table
    assert.equal(wakes, 1);
    rmSync(planted);
    await new Promise<void>((r) => {
      const wait = () => (wakes >= 2 ? r() : setTimeout(wait, 10));
      wait();
    });
    const got = await gate.tryAcquire(step('x', ['src/x.ts']));
    assert.ok(got.ok);
    got.release();
    await gate.close();
    assert.deepEqual(lockFiles(ws), []);
  });
});
