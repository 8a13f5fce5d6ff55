import { strict as assert } from 'node:assert';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { graphFromSnapshot, snapshotGraph } from '../../src/core/engine/records/snapshot';
import { SimClock } from '../../src/core/engine/scheduling/clock';
import { procStart } from '../../src/core/exec/pidAlive';
import { RunStore, type StoreFs } from '../../src/core/engine/records/runStore';
import type { AttemptRecord, RunRecord, StepRecord } from '../../src/core/engine/records/runRecord';
import type { StepStatus } from '../../src/core/status';
import type { Graph } from '../../src/core/plan/types';
import { makeGraph, matrixSteps } from '../helpers/graph';
import { worktreesRoot } from '../../src/core/engine/records/worktreeHome';

let root: string;
beforeEach(async () => {
  root = await fsp.mkdtemp(join(tmpdir(), 'braid-store-'));
});
afterEach(async () => {
  await fsp.rm(root, { recursive: true, force: true });
});

function sampleGraph(): Graph {
  return makeGraph(
    [
      {
        id: 'tests',
        needs: ['build', 'research-aider'],
        run: 'npm test',
        retries: 2,
        check: 'test -f out',
        isolation: 'shared',
      },
      {
        id: 'build',
        prompt: 'Build ${{ context }}',
        writes: ['src/**'],
        reads: ['docs/*.md'],
        env: { A: '1' },
        timeoutMs: 1200000,
        isolation: 'worktree',
      },
      ...matrixSteps('research', 'tool', ['aider', 'cline'], { prompt: 'Research ${{ matrix.tool }}' }),
    ],
    {
      plan: {
        file: join(root, 'x.braid.yaml'),
        name: 'Sample',
        concurrency: 3,
        context: 'Monorepo',
        pools: { claude: 2 },
      },
    },
  );
}

function record(id: string, over: Partial<RunRecord> = {}, graph: Graph = sampleGraph()): RunRecord {
  const steps: Record<string, StepRecord> = {};
  for (const sid of graph.order) steps[sid] = { id: sid, status: 'pending', attempts: [] };
  return {
    version: 1,
    id,
    planFile: graph.plan.file,
    planName: graph.plan.name,
    workspace: root,
    status: 'running',
    createdAt: '2026-12-02T19:05:01.000Z',
    host: { pid: process.pid, hostname: hostname() },
    graph: snapshotGraph(graph),
    steps,
    ...over,
  };
}

/** A real fs whose renames are counted, and can be made to fail. */
function countingFs() {
  const state = { renames: 0, fail: false };
  const fs: StoreFs = {
    ...fsp,
    rename: async (a, b) => {
      state.renames++;
      if (state.fail) throw Object.assign(new Error('disk full (test)'), { code: 'ENOSPC' });
      return fsp.rename(a, b);
    },
  };
  return { fs, state };
}

const tick = () => new Promise<void>((r) => setImmediate(r));

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((r) => child.once('exit', r));
  assert.ok(child.pid);
  return child.pid;
}

describe('snapshot', () => {
  it('round-trips a graph, keeping the topological order rather than file order', () => {
    const g = sampleGraph();
    const snap = snapshotGraph(g);
    assert.deepEqual(
      snap.steps.map((s) => s.id),
      g.order,
    );
    assert.notDeepEqual(g.order, ['tests', 'build', 'research-aider', 'research-cline']);
    const back = graphFromSnapshot(JSON.parse(JSON.stringify(snap)));
    assert.deepStrictEqual(back, g);
    assert.deepEqual([...back.steps.keys()], g.order);
  });

  it('is a copy: changing the snapshot leaves the graph alone', () => {
    const g = sampleGraph();
    const snap = snapshotGraph(g);
    (snap.steps[0]!.writes as string[]).push('mutated');
    (snap.plan.env as Record<string, string>).X = 'y';
    assert.ok(!g.steps.get(snap.steps[0]!.id)!.writes.includes('mutated'));
    assert.equal(g.plan.env.X, undefined);
  });
});

describe('RunStore', () => {
  it('makes sortable run ids from UTC time plus 4 hex digits', () => {
    const t = new Date(Date.UTC(2026, 11, 2, 19, 5, 1));
    assert.match(RunStore.newRunId(t), /^20261202-190501-[0-9a-f]{4}$/);
    const later = RunStore.newRunId(new Date(Date.UTC(2026, 11, 2, 19, 5, 2)));
    const nextYear = RunStore.newRunId(new Date(Date.UTC(2027, 0, 1, 0, 0, 0)));
    assert.ok(RunStore.newRunId(t) < later && later < nextYear);
    const same = new Set(Array.from({ length: 20 }, () => RunStore.newRunId(t)));
    assert.ok(same.size > 15, `only ${same.size} distinct ids of 20`);
  });

  it('lays out run files as plan-format.md says, and refuses ids that escape', () => {
    const p = new RunStore(root).paths('r1');
    const runs = join(root, '.braid', 'runs');
    assert.equal(p.dir, join(runs, 'r1'));
    assert.equal(p.runJson, join(runs, 'r1', 'run.json'));
    assert.equal(p.log('build'), join(runs, 'r1', 'logs', 'build.log'));
    assert.equal(p.rawLog('build'), join(runs, 'r1', 'logs', 'build.jsonl'));
    assert.equal(p.output('research-aider'), join(runs, 'r1', 'outputs', 'research-aider'));
    assert.equal(p.worktree('build'), join(worktreesRoot(root), 'r1', 'build'));
    for (const bad of ['..', '../x', 'a/b', '', '.hidden'])
      assert.throws(() => new RunStore(root).paths(bad), /invalid run id/);
    for (const bad of ['../x', 'a\\b', '.', '..']) assert.throws(() => p.log(bad), /invalid step id/);
    assert.throws(() => new RunStore('relative/ws'), /absolute/);
  });

  it('creates a run and loads back the same record, graph snapshot included, as readable JSON', async () => {
    const store = new RunStore(root);
    const g = sampleGraph();
    const rec = record('r1', {}, g);
    rec.steps.build = {
      id: 'build',
      status: 'failed',
      startedAt: '2026-12-02T19:05:02.000Z',
      endedAt: '2026-12-02T19:05:03.000Z',
      exitCode: null,
      signal: 'SIGTERM',
      reason: 'timeout',
      message: 'timed out after 1s',
      durationMs: 1000,
      attempts: [
        {
          attempt: 1,
          startedAt: '2026-12-02T19:05:02.000Z',
          endedAt: '2026-12-02T19:05:03.000Z',
          exitCode: null,
          signal: 'SIGTERM',
          reason: 'timeout',
          durationMs: 1000,
        },
      ],
      worktree: '.braid/worktrees/r1/build',
      costUsd: 0.25,
      sessionId: 'abc',
    };
    rec.steps.tests = {
      id: 'tests',
      status: 'waiting',
      attempts: [],
      waitingFor: { holder: 'build', paths: ['src/a.ts'] },
    };
    await store.create(rec);
    const p = store.paths('r1');
    assert.ok(existsSync(p.logsDir) && existsSync(p.outputsDir));
    const loaded = await store.load('r1');
    assert.deepStrictEqual(loaded, JSON.parse(JSON.stringify(rec)));
    assert.deepStrictEqual(graphFromSnapshot(loaded!.graph), g);
    const text = readFileSync(p.runJson, 'utf8');
    assert.ok(text.startsWith('{\n  "version": 1,\n  "id": "r1",'), text.slice(0, 40));
  });

  it('refuses to create a run whose folder exists (an id collision must not merge two runs)', async () => {
    const store = new RunStore(root);
    await store.create(record('r1', { planName: 'first' }));
    await assert.rejects(store.create(record('r1', { planName: 'second' })), { code: 'EEXIST' });
    assert.equal((await store.load('r1'))?.planName, 'first');
  });

  it('writes .braid/.gitignore once, and git then ignores the whole folder', async () => {
    execFileSync('git', ['init', '-q', root]);
    const store = new RunStore(root);
    await store.create(record('r1'));
    const ignore = join(root, '.braid', '.gitignore');
    assert.equal(readFileSync(ignore, 'utf8'), '*\n');
    await store.writeOutput('r1', 'build', 'done');
    assert.equal(
      execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: root, encoding: 'utf8' }),
      '',
    );
    // A user's own edit survives later runs.
    await fsp.writeFile(ignore, '*\n# mine\n');
    await store.create(record('r2'));
    assert.equal(readFileSync(ignore, 'utf8'), '*\n# mine\n');
  });

  it('keeps run.json valid JSON at every moment while 500 changes are saved, ending at the last', async () => {
    const { fs, state } = countingFs();
    const store = new RunStore(root, fs);
    // A few hundred KB, so a torn (non-atomic) write would be visible to the reader.
    const big = makeGraph(Array.from({ length: 400 }, (_, i) => ({ id: `s${i}`, prompt: 'x'.repeat(300) })));
    const rec = record('r1', {}, big);
    await store.create(rec);
    const file = store.paths('r1').runJson;
    let done = false;
    let reads = 0;
    const reader = (async () => {
      while (!done) {
        const text = await fsp.readFile(file, 'utf8');
        JSON.parse(text); // throws (failing the test) on a torn or empty file
        reads++;
      }
    })();
    for (let i = 0; i < 500; i++) {
      rec.steps[`s${i % 400}`]!.status = i % 2 ? 'running' : 'waiting';
      rec.steps.s0!.message = `change ${i}`;
      void store.save(rec);
      // Spread over ~300 ms: a run's record is written at most every 100 ms, and the reader must
      // meet several writes.
      if (i % 5 === 0) await new Promise((r) => setTimeout(r, 3));
    }
    await store.flush();
    done = true;
    await reader;
    assert.ok(reads > 0 && state.renames > 2, `reads ${reads}, renames ${state.renames}`);
    const final = JSON.parse(readFileSync(file, 'utf8')) as RunRecord;
    assert.equal(final.steps.s0!.message, 'change 499');
    assert.deepStrictEqual(final, JSON.parse(JSON.stringify(rec)));
    assert.deepEqual((await fsp.readdir(store.paths('r1').dir)).sort(), ['logs', 'outputs', 'run.json']);
  });

  it('coalesces 1,000 rapid saves into far fewer writes; each resolves once its state is on disk', async () => {
    const { fs, state } = countingFs();
    const store = new RunStore(root, fs);
    await store.create(record('r1'));
    const before = state.renames;
    const file = store.paths('r1').runJson;
    const checks: Promise<void>[] = [];
    const saves: Promise<void>[] = [];
    for (let i = 1; i <= 1000; i++) {
      const p = store.save(record('r1', { planName: `state ${i}` }));
      saves.push(p);
      // On resolution, the file must hold this state or a later one.
      if (i % 100 === 1) {
        checks.push(
          p.then(() => {
            const n = Number((JSON.parse(readFileSync(file, 'utf8')) as RunRecord).planName.split(' ')[1]);
            assert.ok(n >= i, `save ${i} resolved while the file held state ${n}`);
          }),
        );
      }
      if (i === 500) await tick();
    }
    await Promise.all([...saves, ...checks]);
    const writes = state.renames - before;
    assert.ok(writes < 1000 && writes >= 1, `${writes} renames`);
    assert.ok(writes <= 10, `${writes} renames for two bursts`);
    assert.equal((await store.load('r1'))?.planName, 'state 1000');
  });

  it('a run that keeps changing is written at most every 100 ms; flush writes the newest at once', async () => {
    const { fs, state } = countingFs();
    // The store's injected clock: 400 ms pass without the test waiting for them.
    const clock = new SimClock();
    const store = new RunStore(root, fs, clock);
    await store.create(record('r2'));
    const before = state.renames;
    // A save every 5 ms for 400 ms, none awaited (as the engine saves).
    await clock.runUntil(
      (async () => {
        for (let i = 1; i <= 80; i++) {
          void store.save(record('r2', { planName: `state ${i}` }));
          await clock.sleep(5);
        }
      })(),
    );
    assert.equal(clock.now(), 400);
    await store.flush();
    const writes = state.renames - before;
    // Spaced by the interval, plus the first (at once) and the flush's (cut short).
    assert.ok(writes >= 2 && writes <= 400 / 100 + 2, `${writes} writes in 400 ms`);
    assert.equal((await store.load('r2'))?.planName, 'state 80', 'flush leaves the newest state on disk');
  });

  it('reports a failed write to its caller and to flush, and keeps going afterwards', async () => {
    const { fs, state } = countingFs();
    const store = new RunStore(root, fs);
    await store.create(record('r1', { planName: 'ok' }));
    state.fail = true;
    await assert.rejects(store.save(record('r1', { planName: 'lost' })), /disk full/);
    void store.save(record('r1', { planName: 'lost too' })); // fire-and-forget must not be an unhandled rejection
    await assert.rejects(store.flush(), /disk full/);
    await store.flush();
    assert.equal((await store.load('r1'))?.planName, 'ok');
    assert.deepEqual(
      (await fsp.readdir(store.paths('r1').dir)).sort(),
      ['logs', 'outputs', 'run.json'],
      'temp files removed',
    );
    state.fail = false;
    await store.save(record('r1', { planName: 'again' }));
    assert.equal((await store.load('r1'))?.planName, 'again');
  });

  it('lists runs newest first with step counts, skipping corrupt and foreign entries', async () => {
    const store = new RunStore(root);
    await store.create(
      record('20261202-100000-aaaa', {
        createdAt: '2026-12-02T10:00:00.000Z',
        status: 'succeeded',
        endedAt: '2026-12-02T10:01:00.000Z',
      }),
    );
    await store.create(record('20261202-120000-cccc', { createdAt: '2026-12-02T12:00:00.000Z' }));
    const mid = record('20261202-110000-bbbb', { createdAt: '2026-12-02T11:00:00.000Z', status: 'failed' });
    mid.steps.build!.status = 'failed';
    mid.steps['research-aider']!.status = 'succeeded';
    mid.steps['research-cline']!.status = 'succeeded';
    mid.steps.tests!.status = 'skipped';
    await store.create(mid);
    const runs = join(root, '.braid', 'runs');
    await fsp.mkdir(join(runs, 'garbage'));
    await fsp.writeFile(join(runs, 'garbage', 'run.json'), '{"version": 1, "id": "garb');
    await fsp.mkdir(join(runs, 'wrongshape'));
    await fsp.writeFile(
      join(runs, 'wrongshape', 'run.json'),
      JSON.stringify({ version: 1, id: 'wrongshape', steps: 3 }),
    );
    await fsp.mkdir(join(runs, 'misfiled'));
    await fsp.writeFile(join(runs, 'misfiled', 'run.json'), JSON.stringify(record('elsewhere')));
    await fsp.mkdir(join(runs, 'empty'));
    await fsp.writeFile(join(runs, 'stray.txt'), 'not a run');

    const list = await store.list();
    assert.deepEqual(
      list.map((r) => r.id),
      ['20261202-120000-cccc', '20261202-110000-bbbb', '20261202-100000-aaaa'],
    );
    const counts = list[1]!.counts;
    assert.deepEqual(counts, {
      pending: 0,
      waiting: 0,
      running: 0,
      review: 0,
      succeeded: 2,
      failed: 1,
      conflict: 0,
      canceled: 0,
      skipped: 1,
      interrupted: 0,
    } satisfies Record<StepStatus, number>);
    assert.equal(list[2]!.endedAt, '2026-12-02T10:01:00.000Z');
    assert.equal(list[0]!.planName, 'Sample');
    assert.equal((await store.latest())?.id, '20261202-120000-cccc');
    for (const id of ['garbage', 'wrongshape', 'misfiled', 'empty', 'nope', '../runs/garbage'])
      assert.equal(await store.load(id), undefined, id);
  });

  it('has nothing to list in a workspace without runs', async () => {
    const store = new RunStore(root);
    assert.deepEqual(await store.list(), []);
    assert.equal(await store.latest(), undefined);
    assert.deepEqual(await store.markInterrupted(), []);
    assert.deepEqual(await store.durationHistory(join(root, 'x.braid.yaml')), new Map());
  });

  it('marks running runs of a dead host interrupted, leaving live hosts, other machines and finished runs', async () => {
    const store = new RunStore(root);
    const dead = await deadPid();
    const orphan = record('orphan', { host: { pid: dead, hostname: hostname() } });
    orphan.steps.build = {
      id: 'build',
      status: 'running',
      startedAt: '2026-12-02T19:05:02.000Z',
      attempts: [{ attempt: 1, startedAt: '2026-12-02T19:05:02.000Z' }],
    };
    orphan.steps['research-aider'] = {
      id: 'research-aider',
      status: 'waiting',
      attempts: [],
      waitingFor: { holder: 'build', paths: ['src/a'] },
    };
    orphan.steps['research-cline'] = { id: 'research-cline', status: 'succeeded', attempts: [] };
    await store.create(orphan);
    await store.create(record('alive', { host: { pid: process.pid, hostname: hostname() } }));
    await store.create(record('remote', { host: { pid: dead, hostname: `${hostname()}-elsewhere` } }));
    await store.create(record('finished', { host: { pid: dead, hostname: hostname() }, status: 'failed' }));

    assert.deepEqual(await store.markInterrupted(), ['orphan']);
    const after = (await store.load('orphan'))!;
    assert.equal(after.status, 'interrupted');
    assert.ok(after.endedAt);
    assert.equal(after.steps.build!.status, 'interrupted');
    assert.ok(after.steps.build!.endedAt);
    assert.equal(after.steps['research-aider']!.status, 'interrupted');
    assert.equal(after.steps['research-aider']!.waitingFor, undefined);
    assert.equal(after.steps['research-cline']!.status, 'succeeded');
    assert.equal(after.steps.tests!.status, 'pending');
    assert.equal((await store.load('alive'))!.status, 'running');
    assert.equal((await store.load('remote'))!.status, 'running');
    assert.equal((await store.load('finished'))!.status, 'failed');
    assert.deepEqual(await store.markInterrupted(), []);
  });

  it('never writes back a stale read: a host that ends its run and exits after markInterrupted read it keeps its end (issue 31)', async () => {
    // The host is a real process; the record on disk says it runs. Right after markInterrupted
    // reads that record, the host writes its end (the run succeeded, a decision landed) and exits:
    // the window two CLI commands raced through under load, here held open on purpose.
    const host = spawn('sleep', ['30']);
    const hostGone = new Promise((r) => host.once('exit', r));
    const live = record('ending', { host: { pid: host.pid!, hostname: hostname() } });
    live.steps.build = {
      id: 'build',
      status: 'review',
      attempts: [{ attempt: 1, startedAt: '2026-12-02T19:05:02.000Z' }],
    };
    const setup = new RunStore(root);
    await setup.create(live);
    const ended: RunRecord = {
      ...live,
      status: 'succeeded',
      endedAt: '2026-12-02T19:06:00.000Z',
      steps: { ...live.steps, build: { ...live.steps.build, status: 'succeeded' } },
    };
    let held = false;
    const fs: StoreFs = {
      ...fsp,
      readFile: (async (file: string, enc: BufferEncoding) => {
        const text = await fsp.readFile(file, enc);
        if (!held && file.endsWith(join('ending', 'run.json'))) {
          held = true;
          await fsp.writeFile(file, JSON.stringify(ended));
          host.kill('SIGKILL');
          await hostGone;
        }
        return text;
      }) as StoreFs['readFile'],
    };
    assert.deepEqual(await new RunStore(root, fs).markInterrupted(), []);
    assert.ok(held, 'the hook ran');
    const after = (await setup.load('ending'))!;
    assert.equal(after.status, 'succeeded');
    assert.equal(after.steps.build!.status, 'succeeded');
  });

  it('takes a host that is a zombie, or whose pid another process reuses, for dead (Linux)', async function () {
    if (process.platform !== 'linux') this.skip();
    const store = new RunStore(root);
    // `sh` starts a child and then becomes `sleep`, which never reaps it: a zombie. The child exits only
    // once its parent is `sleep` (a child that ended sooner could be reaped by sh, on a loaded machine).
    const parent = spawn(
      'sh',
      ['-c', 'p=$$; (while [ "$(cat /proc/$p/comm)" != sleep ]; do :; done) & echo $!; exec sleep 30'],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    try {
      const zombie = Number(
        (await new Promise<string>((done) => parent.stdout.once('data', (b: Buffer) => done(b.toString())))).trim(),
      );
      while (!/\) Z /.test(readFileSync(`/proc/${zombie}/stat`, 'utf8'))) await new Promise((r) => setImmediate(r));
      await store.create(record('zombie', { host: { pid: zombie, hostname: hostname() } }));
      // This very process, but as the record says another process started: the pid was reused.
      await store.create(record('reused', { host: { pid: process.pid, hostname: hostname(), procStart: '1' } }));
      await store.create(
        record('alive', { host: { pid: process.pid, hostname: hostname(), procStart: procStart(process.pid)! } }),
      );
      assert.deepEqual((await store.markInterrupted()).sort(), ['reused', 'zombie']);
      assert.equal((await store.load('alive'))!.status, 'running');
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('gives the median duration of succeeded attempts over the plan’s last runs', async () => {
    const store = new RunStore(root);
    const planFile = join(root, 'x.braid.yaml');
    const attempt = (durationMs: number, status?: AttemptRecord['status']): AttemptRecord => ({
      attempt: 1,
      startedAt: '2026-12-02T19:05:02.000Z',
      durationMs,
      ...(status ? { status } : {}),
    });
    const run = async (n: number, steps: Record<string, Partial<StepRecord>>, over: Partial<RunRecord> = {}) => {
      const rec = record(`run${String(n).padStart(2, '0')}`, {
        createdAt: `2026-12-02T10:${String(n).padStart(2, '0')}:00.000Z`,
        status: 'succeeded',
        ...over,
      });
      for (const [id, s] of Object.entries(steps)) rec.steps[id] = { id, status: 'succeeded', attempts: [], ...s };
      await store.create(rec);
    };
    // Oldest first; run00 falls outside the last 10 of this plan.
    await run(0, { build: { attempts: [attempt(1_000_000)] } });
    for (let i = 1; i <= 10; i++) {
      await run(i, {
        build: { attempts: [attempt(100 * i)] },
        // An explicit failed attempt before the success never counts.
        tests: {
          attempts: [{ ...attempt(99_999, 'failed') }, { ...attempt(i <= 5 ? 10 : 20, 'succeeded'), attempt: 2 }],
        },
        // Without attempt statuses, a succeeded step's last attempt is its success.
        'research-aider': { attempts: [attempt(77_777), { ...attempt(50), attempt: 2 }] },
        'research-cline': { status: 'failed', attempts: [attempt(88_888)] },
      });
    }
    await run(20, { build: { attempts: [attempt(5)] } }, { planFile: join(root, 'other.braid.yaml') });

    const h = await store.durationHistory(planFile);
    assert.equal(h.get('build'), 550); // median of 100..1000: (500 + 600) / 2
    assert.equal(h.get('tests'), 15);
    assert.equal(h.get('research-aider'), 50);
    assert.equal(h.has('research-cline'), false);
    const last3 = await store.durationHistory(planFile, 3);
    assert.equal(last3.get('build'), 900);
  });

  it('stores and reads step outputs', async () => {
    const store = new RunStore(root);
    await store.create(record('r1'));
    assert.equal(await store.readOutput('r1', 'build'), undefined);
    await store.writeOutput('r1', 'build', 'résumé ✓\nline 2');
    assert.equal(await store.readOutput('r1', 'build'), 'résumé ✓\nline 2');
    assert.equal(readFileSync(store.paths('r1').output('build'), 'utf8'), 'résumé ✓\nline 2');
    await store.writeOutput('r1', 'build', '');
    assert.equal(await store.readOutput('r1', 'build'), '');
  });
});
