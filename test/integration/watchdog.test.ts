// Steps never outlive their engine: `kill -9` of a `braid run` ends its steps (spawned or started
// from a warm launcher, TERM-ignoring ones too), and a dead engine's lock is broken only once its
// watchdog (and so its steps) is gone.
import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { LockDir } from '../../src/core/engine/locks/lockDir';
import { engineWithSteps, survivors } from '../helpers/engineKill';
import { isGone } from '../helpers/processes';
import { plan } from '../helpers/planText';
import { createInterface } from 'node:readline';

const ROOT = resolve(__dirname, '../..');

describe('watchdog: steps do not outlive their engine', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    assert.equal(spawnSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, stdio: 'inherit' }).status, 0);
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'braid-watchdog-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('kill -9 of `braid run` ends every step, spawned or launched, TERM-ignoring too', async () => {
    const { engine, pids } = await engineWithSteps(dir, 4);
    assert.ok(
      pids.every((p) => !isGone(p)),
      'the steps run',
    );
    engine.kill('SIGKILL');
    // A liveness bound, not a timing claim (bench part `orphans` measures it).
    const left = await survivors(pids, 15_000);
    for (const p of left)
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        /* gone */
      }
    assert.deepEqual(left, [], 'steps outlived their engine');
  });

  it('kill -9 of `braid run` ends the processes its steps started outside their groups, by their mark', async () => {
    // The step's child leaves the group (setsid) and ignores TERM: only its mark leads to it.
    writeFileSync(
      join(dir, 'escape.sh'),
      `trap "" TERM\nsetsid sh -c 'trap "" TERM; exec sleep 60' >/dev/null 2>&1 &\necho "pid $!"\necho "pid $$"\nexec sleep 60\n`,
    );
    writeFileSync(
      join(dir, 'p.braid.yaml'),
      plan`
        version: 1
        steps:
          s: { run: sh escape.sh }
      `,
    );
    const engine = spawn(process.execPath, [join(ROOT, 'out/cli.js'), 'run', 'p.braid.yaml', '--json'], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const pids: number[] = [];
    await new Promise<void>((done) =>
      createInterface({ input: engine.stdout }).on('line', (l) => {
        // One output event may carry both lines.
        for (const m of ((JSON.parse(l) as { text?: string }).text ?? '').matchAll(/pid (\d+)/g))
          pids.push(Number(m[1]));
        if (pids.length === 2) done();
      }),
    );
    engine.kill('SIGKILL');
    const left = await survivors(pids, 15_000);
    for (const p of left) process.kill(p, 'SIGKILL');
    assert.deepEqual(left, [], 'a step outlived its engine');
  });
});

describe('watchdog: restarted when killed', function () {
  this.timeout(30_000);

  it('a watchdog killed from outside is replaced, and the new one still ends the groups', async () => {
    const watchdog = join(ROOT, 'src/core/exec/watchdog.ts');
    // A process that guards a sleep's group, has its watchdog killed, waits for the next one, and dies.
    const script = `const { spawn } = require('node:child_process');
      const w = require(${JSON.stringify(watchdog)});
      const s = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
      w.guardGroup(s.pid);
      const first = w.watchdogPid();
      process.kill(first, 'SIGKILL');
      const look = () => { const next = w.watchdogPid(); if (next && next !== first) { console.log(s.pid + ' ' + first + ' ' + next); setTimeout(() => process.kill(process.pid, 'SIGKILL'), 100); } else setTimeout(look, 20); };
      setTimeout(look, 20);`;
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
    });
    await new Promise((r) => child.once('exit', r));
    const [sleepPid, first, next] = out.trim().split(' ').map(Number);
    assert.ok(sleepPid && first && next && first !== next, out);
    const left = await survivors([sleepPid], 15_000);
    for (const p of left)
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        /* gone */
      }
    assert.deepEqual(left, [], 'the replacement ended the group');
  });
});

describe('LockDir: a dead holder with a live watchdog still holds', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'braid-locks-'));
    mkdirSync(join(root, '.braid', 'locks'), { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('is broken only once the watchdog is gone too', async () => {
    const dead = spawnSync('true').pid;
    const watchdog = spawn('sleep', ['60'], { stdio: 'ignore' });
    const exited = new Promise((r) => watchdog.once('exit', r));
    writeFileSync(
      join(root, '.braid', 'locks', `${dead}-x.json`),
      JSON.stringify({
        pid: dead,
        hostname: hostname(),
        run: 'old',
        step: 's',
        startedAt: new Date().toISOString(),
        writes: ['src/**'],
        reads: [],
        watchdog: { pid: watchdog.pid },
      }),
    );
    const dirLock = new LockDir(root);
    const held = await dirLock.tryAcquire({ run: 'new', step: 'a' }, ['src/a.ts'], []);
    assert.equal(held.ok, false, 'its steps may still write');
    watchdog.kill('SIGKILL');
    await exited;
    const free = await dirLock.tryAcquire({ run: 'new', step: 'a' }, ['src/a.ts'], []);
    assert.ok(free.ok, 'holder and watchdog gone: broken');
    await free.release();
  });
});
