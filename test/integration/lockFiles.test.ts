import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { LockDir, type LockRecord } from '../../src/core/engine/locks/lockDir';

const HOLDER = join(__dirname, '..', 'fixtures', 'locks', 'holder.ts');
const REPO = join(__dirname, '..', '..');

interface Holder {
  child: ChildProcess;
  pid: number;
  send(cmd: object): void;
  next(): Promise<Record<string, unknown>>;
  exited: Promise<void>;
}

// A real second process running LockDir, driven one JSON line at a time.
async function startHolder(root: string): Promise<Holder> {
  const child = spawn(process.execPath, ['--import', 'tsx', HOLDER, root], {
    cwd: REPO,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const queue: Array<Record<string, unknown>> = [];
  const waiters: Array<(e: Record<string, unknown>) => void> = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const event = JSON.parse(line) as Record<string, unknown>;
    const w = waiters.shift();
    if (w) w(event);
    else queue.push(event);
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const h: Holder = {
    child,
    pid: child.pid!,
    send: (cmd) => child.stdin.write(`${JSON.stringify(cmd)}\n`),
    next: () => {
      const e = queue.shift();
      return e ? Promise.resolve(e) : new Promise((resolve) => waiters.push(resolve));
    },
    exited,
  };
  assert.equal((await h.next()).event, 'ready');
  return h;
}

const lockFiles = (root: string): string[] =>
  readdirSync(join(root, '.braid', 'locks')).filter((n) => n.endsWith('.json'));
const readLock = (root: string, name: string): LockRecord =>
  JSON.parse(readFileSync(join(root, '.braid', 'locks', name), 'utf8')) as LockRecord;

function fired(dir: LockDir): { promise: Promise<void>; dispose(): void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  const sub = dir.watch(() => resolve());
  return { promise, dispose: () => sub.dispose() };
}

describe('LockDir across processes', () => {
  let root: string;
  const children: Holder[] = [];
  const spawnHolder = async (): Promise<Holder> => {
    const h = await startHolder(root);
    children.push(h);
    return h;
  };

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'braid-locks-'));
  });
  afterEach(async () => {
    for (const h of children.splice(0)) {
      if (h.child.exitCode === null && h.child.signalCode === null) h.child.kill('SIGKILL');
      await h.exited;
    }
    rmSync(root, { recursive: true, force: true });
  });

  it('a lock held by another process blocks an overlapping set, names it, and frees on release', async () => {
    const child = await spawnHolder();
    // A poll far beyond the test's life: only the file-system event can wake the waiter.
    const dir = new LockDir(root, { pollMs: 600_000 });
    const woke = fired(dir);
    child.send({ cmd: 'acquire', run: 'run-1', step: 'build', writes: ['src/**'], reads: ['docs/spec.md'] });
    assert.equal((await child.next()).event, 'held');

    const [name] = lockFiles(root);
    const record = readLock(root, name!);
    assert.deepEqual(
      {
        pid: record.pid,
        hostname: record.hostname,
        run: record.run,
        step: record.step,
        writes: record.writes,
        reads: record.reads,
      },
      {
        pid: child.pid,
        hostname: hostname(),
        run: 'run-1',
        step: 'build',
        writes: ['src/**'],
        reads: ['docs/spec.md'],
      },
    );
    assert.ok(!Number.isNaN(Date.parse(record.startedAt)));

    const blocked = await dir.tryAcquire({ run: 'run-2', step: 'edit' }, ['src/a.ts'], []);
    assert.equal(blocked.ok, false);
    assert.ok(!blocked.ok);
    assert.equal(blocked.holder, `run-1/build (pid ${child.pid})`);
    assert.deepEqual(blocked.paths, ['src/a.ts', 'src/**']);
    assert.equal(
      (await dir.tryAcquire({ run: 'run-2', step: 'w' }, ['docs/spec.md'], [])).ok,
      false,
      'write against a read',
    );

    const docs = await dir.tryAcquire({ run: 'run-2', step: 'docs' }, ['docs/guide/**'], ['src/**']);
    assert.equal(docs.ok, false, 'reading src/** against its writer');
    const disjoint = await dir.tryAcquire({ run: 'run-2', step: 'docs' }, ['docs/guide/**'], []);
    assert.ok(disjoint.ok);

    child.send({ cmd: 'release' });
    assert.equal((await child.next()).event, 'released');
    await woke.promise;
    woke.dispose();
    const now = await dir.tryAcquire({ run: 'run-2', step: 'edit' }, ['src/a.ts'], []);
    assert.ok(now.ok);
    await now.release();
    await disjoint.release();
    assert.deepEqual(lockFiles(root), []);
  });

  it('breaks the lock of a process killed with -9, and a watcher notices the death', async () => {
    const child = await spawnHolder();
    child.send({ cmd: 'acquire', run: 'run-1', step: 'build', writes: ['src/**'] });
    assert.equal((await child.next()).event, 'held');
    const dir = new LockDir(root, { pollMs: 20 });
    assert.equal((await dir.tryAcquire({ run: 'run-2', step: 'x' }, ['src/a.ts'], [])).ok, false);
    const woke = fired(dir);

    const [stale] = lockFiles(root);
    child.child.kill('SIGKILL');
    await child.exited;
    assert.ok(existsSync(join(root, '.braid', 'locks', stale!)), 'a crash leaves its file behind');
    await woke.promise; // no file vanished: the poll found the holder dead
    woke.dispose();

    const got = await dir.tryAcquire({ run: 'run-2', step: 'x' }, ['src/a.ts'], []);
    assert.ok(got.ok);
    const left = lockFiles(root);
    assert.equal(left.length, 1);
    assert.notEqual(left[0], stale);
    assert.equal(readLock(root, left[0]!).pid, process.pid);
    await got.release();
  });

  it('a normal exit removes the holder file', async () => {
    const child = await spawnHolder();
    child.send({ cmd: 'acquire', run: 'run-1', step: 'build', writes: ['**'] });
    assert.equal((await child.next()).event, 'held');
    assert.equal(lockFiles(root).length, 1);
    child.send({ cmd: 'exit' });
    await child.exited;
    assert.deepEqual(lockFiles(root), []);
  });

  it('two processes racing for overlapping sets never both win (20 rounds)', async () => {
    const [a, b] = await Promise.all([spawnHolder(), spawnHolder()]);
    for (let round = 0; round < 20; round++) {
      const at = Date.now() + 25;
      a.send({ cmd: 'acquire', run: 'run-a', step: `s${round}`, writes: ['src/**'], at });
      b.send({ cmd: 'acquire', run: 'run-b', step: `s${round}`, writes: ['src/a.ts'], at });
      const [ea, eb] = await Promise.all([a.next(), b.next()]);
      const winners = [ea, eb].filter((e) => e.event === 'held').length;
      assert.equal(winners, 1, `round ${round}: ${JSON.stringify([ea, eb])}`);
      const loser = ea.event === 'held' ? eb : ea;
      assert.match(String(loser.holder), ea.event === 'held' ? /^run-a\// : /^run-b\//);
      const winner = ea.event === 'held' ? a : b;
      winner.send({ cmd: 'release' });
      assert.equal((await winner.next()).event, 'released');
    }
    assert.deepEqual(lockFiles(root), []);
  });
});

describe('LockDir in one process', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'braid-locks-'));
    mkdirSync(join(root, '.braid', 'locks'), { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const plant = (name: string, record: Partial<LockRecord>): void =>
    writeFileSync(
      join(root, '.braid', 'locks', name),
      JSON.stringify({
        pid: 1,
        hostname: hostname(),
        run: 'old',
        step: 's',
        startedAt: new Date().toISOString(),
        writes: ['**'],
        reads: [],
        ...record,
      }),
    );

  it('leaves its own process to LockTable: two instances here do not block each other', async () => {
    const one = await new LockDir(root).tryAcquire({ run: 'r', step: 'a' }, ['src/**'], []);
    const two = await new LockDir(root).tryAcquire({ run: 'r', step: 'b' }, ['src/**'], []);
    assert.ok(one.ok && two.ok);
    await one.release();
    await two.release();
  });

  it('releases idempotently, and releaseAllOwnedBy removes only that run', async () => {
    const dir = new LockDir(root);
    const a1 = await dir.tryAcquire({ run: 'A', step: '1' }, ['a1'], []);
    const a2 = await dir.tryAcquire({ run: 'A', step: '2' }, [], ['a2']);
    const b1 = await dir.tryAcquire({ run: 'B', step: '1' }, ['b1'], []);
    assert.ok(a1.ok && a2.ok && b1.ok);
    assert.equal(lockFiles(root).length, 3);
    await a1.release();
    await a1.release();
    await dir.releaseAllOwnedBy('A');
    assert.deepEqual(
      lockFiles(root).map((n) => readLock(root, n).run),
      ['B'],
    );
    await a2.release();
    await b1.release();
    assert.deepEqual(lockFiles(root), []);
  });

  it('takes no lock and writes no file for a step without writes or reads', async () => {
    plant('other.json', { pid: process.ppid, writes: ['**'] });
    const got = await new LockDir(root).tryAcquire({ run: 'r', step: 'free' }, [], []);
    assert.ok(got.ok);
    assert.deepEqual(lockFiles(root), ['other.json']);
  });

  it('treats a live pid, and any pid on another host, as alive; breaks a reused pid', async () => {
    plant('live.json', { pid: process.ppid, run: 'live', writes: ['live/**'] });
    plant('remote.json', { pid: 999_999_999, hostname: 'some-other-host', run: 'remote', writes: ['remote/**'] });
    const dir = new LockDir(root);
    const live = await dir.tryAcquire({ run: 'r', step: 'x' }, ['live/a'], []);
    assert.ok(!live.ok);
    assert.equal(live.holder, `live/s (pid ${process.ppid})`);
    const remote = await dir.tryAcquire({ run: 'r', step: 'x' }, ['remote/a'], []);
    assert.ok(!remote.ok);
    assert.equal(remote.holder, 'remote/s (pid 999999999 on some-other-host)');
    if (existsSync(`/proc/${process.pid}/stat`)) {
      // Our own pid, but a start time that is not ours: an earlier process that had this pid.
      plant('reused.json', { pid: process.pid, procStart: '1', run: 'reused', writes: ['reused/**'] });
      const got = await dir.tryAcquire({ run: 'r', step: 'x' }, ['reused/a'], []);
      assert.ok(got.ok);
      assert.ok(!existsSync(join(root, '.braid', 'locks', 'reused.json')));
      await got.release();
    }
    assert.deepEqual(lockFiles(root).sort(), ['live.json', 'remote.json']);
  });

  it('watch works when the lock directory does not exist yet', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'braid-locks-fresh-'));
    try {
      const other = new LockDir(fresh, { pollMs: 600_000 });
      const woke = fired(other);
      // Planted rather than acquired: our own process's files are skipped by the other instance.
      writeFileSync(join(fresh, '.braid', 'locks', 'x.json'), '{}');
      await new Promise((r) => setTimeout(r, 30));
      rmSync(join(fresh, '.braid', 'locks', 'x.json'));
      await woke.promise;
      woke.dispose();
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });
});
