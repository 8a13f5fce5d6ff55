// Warm launchers against real processes: a step started from a launcher must get exactly what
// spawn() would give it (argv, environment, directory, exit status, process group), report the
// same failures, and never keep the engine alive.
import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchable, LauncherPool } from '../../src/core/exec/launcher';
import { runProcess, type SpawnSpec } from '../../src/core/exec/process';
import { goneSoon, launchersOf } from '../helpers/processes';
import { runPlan } from '../../src/core/engine/runPlan';
import { untilHolds } from '../helpers/until';

// The environment as given, and apart whether the process carries a mark of its own (marked.ts).
const PROBE =
  'const { BRAID_PROCESS: mark, ...env } = process.env; process.stdout.write(JSON.stringify({ argv: process.argv.slice(1), cwd: process.cwd(), env, marked: /^\\d+\\.[0-9a-f]{16}$/.test(mark) }))';
const ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', SHLVL: '2' };

/** Waits until the pool has `n` idle launchers. */
async function ready(pool: LauncherPool, n: number): Promise<number[]> {
  await untilHolds(() => pool.idlePids().length >= n, `${n} idle launchers`);
  return pool.idlePids();
}

describe('engine/launcher', function () {
  this.timeout(30_000);
  const pools: LauncherPool[] = [];
  const dirs: string[] = [];
  const pool = (size: number): LauncherPool => {
    const p = LauncherPool.create(size, process.env, 'bash');
    assert.ok(p, 'bash is on this machine');
    pools.push(p);
    return p;
  };
  after(() => {
    for (const p of pools) p.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('a warm start gives the process exactly what spawn() gives: argv, environment and directory, as data', async () => {
    const p = pool(1);
    const [launcherPid] = await ready(p, 1);
    const dir = mkdtempSync(join(tmpdir(), 'braid launch "dir"\n-'));
    dirs.push(dir);
    const pwned = join(dir, 'pwned');
    const spec: SpawnSpec = {
      argv: [
        process.execPath,
        '-e',
        PROBE,
        'a b',
        '',
        `$(touch ${pwned})`,
        '`touch x`',
        'line1\nline2',
        '\'"\\',
        '-x',
        'ünï ☃',
        ';|&',
      ],
      cwd: dir,
      env: {
        ...ENV,
        MULTI: 'one\ntwo\n',
        EQ: 'a=b=c',
        EMPTY: '',
        SPACES: '  x  ',
        SUBST: `$(touch ${pwned})`,
        PWD: '/somewhere/else',
        OLDPWD: '/before',
      },
    };
    let spawnedPid: number | undefined;
    const warm = await runProcess({
      ...spec,
      launcher: p,
      onSpawn: (pid) => {
        spawnedPid = pid;
      },
    });
    const direct = await runProcess(spec);
    assert.equal(warm.reason, 'exit');
    assert.equal(warm.exitCode, 0);
    assert.equal(warm.pid, launcherPid, 'the launcher became the step');
    assert.equal(spawnedPid, launcherPid);
    assert.deepEqual(JSON.parse(warm.stdoutTail), JSON.parse(direct.stdoutTail));
    assert.deepEqual(JSON.parse(warm.stdoutTail).env, spec.env);
    assert.equal(JSON.parse(warm.stdoutTail).marked, true, 'and its own mark');
    assert.equal(existsSync(pwned), false, 'no value was run as shell source');
  });

  it('the common case, the engine’s environment plus a few, arrives exact too (SHLVL, PWD and a dropped variable included)', async () => {
    const base = {
      PATH: ENV.PATH,
      SHLVL: '1',
      LANG: 'C.UTF-8',
      HOME: '/home/x',
      PWD: '/engine/dir',
      DROPPED: 'engine only',
    };
    const p = LauncherPool.create(1, base, 'bash')!;
    pools.push(p);
    const [launcherPid] = await ready(p, 1);
    const { DROPPED: _dropped, ...kept } = base;
    const env = { ...kept, SHLVL: '4', BRAID_STEPS_A_OUTPUT: 'from a\n$(x)', LANG: 'C' };
    const r = await runProcess({ argv: [process.execPath, '-e', PROBE], cwd: tmpdir(), env, launcher: p });
    assert.equal(r.pid, launcherPid);
    assert.deepEqual(JSON.parse(r.stdoutTail).env, env);
  });

  it('exit codes, signals and stderr are the step’s own', async () => {
    const p = pool(2);
    await ready(p, 2);
    const code = await runProcess({
      argv: ['/bin/sh', '-c', 'echo out; echo err >&2; exit 7'],
      cwd: tmpdir(),
      env: ENV,
      launcher: p,
      onOutput: () => undefined,
    });
    assert.deepEqual([code.reason, code.exitCode, code.signal, code.stdoutTail], ['exit', 7, null, 'out\n']);
    const sig = await runProcess({ argv: ['/bin/sh', '-c', 'kill -TERM $$'], cwd: tmpdir(), env: ENV, launcher: p });
    assert.deepEqual([sig.reason, sig.exitCode, sig.signal], ['exit', null, 'SIGTERM']);
  });

  it('a timeout ends the step’s whole process group, grandchildren included', async () => {
    const p = pool(1);
    const [launcherPid] = await ready(p, 1);
    const dir = mkdtempSync(join(tmpdir(), 'braid-launch-'));
    dirs.push(dir);
    const r = await runProcess({
      argv: ['/bin/sh', '-c', 'sleep 30 & echo $! > bg.pid; sleep 30'],
      cwd: dir,
      env: ENV,
      launcher: p,
      timeoutMs: 400,
      graceMs: 200,
    });
    assert.equal(r.reason, 'timeout');
    assert.equal(r.pid, launcherPid);
    const bg = Number(spawnSync('cat', [join(dir, 'bg.pid')], { encoding: 'utf8' }).stdout);
    assert.ok(bg > 0);
    assert.ok(await goneSoon(bg), 'the background sleep was ended with its group');
  });

  it('a missing executable or directory fails the start as spawn() does, and the step never runs', async () => {
    const p = pool(2);
    await ready(p, 2);
    const missing = await runProcess({ argv: ['braid-no-such-command'], cwd: tmpdir(), env: ENV, launcher: p });
    assert.deepEqual(
      [missing.reason, missing.exitCode, missing.message],
      ['spawn-failed', null, 'spawn braid-no-such-command ENOENT'],
    );
    const noCwd = await runProcess({ argv: ['true'], cwd: join(tmpdir(), 'braid-no-such-dir'), env: ENV, launcher: p });
    assert.equal(noCwd.reason, 'spawn-failed');
    assert.match(noCwd.message ?? '', /cwd .*braid-no-such-dir is not a directory/);
  });

  it('environments bash would treat specially start with spawn(), exactly', async () => {
    assert.equal(launchable(['true'], '/', { ...ENV }), true);
    for (const env of [
      { ...ENV, BASH_ENV: '/tmp/x' },
      { ...ENV, RANDOM: '4' },
      { ...ENV, 'A.B': '1' },
      { PATH: ENV.PATH },
      { ...ENV, X: 'a\0b' },
    ]) {
      assert.equal(launchable(['true'], '/', env), false, JSON.stringify(env));
    }
    const p = pool(1);
    const [launcherPid] = await ready(p, 1);
    const env = { ...ENV, BASH_ENV: '/nonexistent', 'DOTTED.NAME': 'kept' };
    const r = await runProcess({ argv: [process.execPath, '-e', PROBE], cwd: tmpdir(), env, launcher: p });
    assert.notEqual(r.pid, launcherPid);
    assert.deepEqual(JSON.parse(r.stdoutTail).env, env);
    assert.deepEqual(p.idlePids(), [launcherPid], 'the launcher stays for the next step');
  });

  it('a launcher that died while idle is skipped, or, dead before its exit was seen, replaced by spawn()', async () => {
    const p = pool(2);
    const [first, second] = await ready(p, 2);
    process.kill(-first!, 'SIGKILL');
    await untilHolds(() => !p.idlePids().includes(first!), 'the pool to see its idle launcher die');
    const skipped = await runProcess({ argv: ['/bin/sh', '-c', 'echo ok'], cwd: tmpdir(), env: ENV, launcher: p });
    assert.deepEqual([skipped.reason, skipped.stdoutTail, skipped.pid], ['exit', 'ok\n', second]);
    const [third] = await ready(p, 1);
    // Killed and taken in the same turn of the event loop: the engine cannot have seen it die.
    process.kill(-third!, 'SIGKILL');
    let spawned: number | undefined;
    const replaced = await runProcess({
      argv: ['/bin/sh', '-c', 'echo ok'],
      cwd: tmpdir(),
      env: ENV,
      launcher: p,
      onSpawn: (pid) => {
        spawned = pid;
      },
    });
    assert.deepEqual([replaced.reason, replaced.exitCode, replaced.stdoutTail], ['exit', 0, 'ok\n']);
    assert.notEqual(replaced.pid, third);
    assert.equal(spawned, replaced.pid);
  });

  it('close ends the idle launchers and removes their requests; an open pool never keeps node running', async () => {
    const p = pool(2);
    const pids = await ready(p, 2);
    // This pool's own folder, not a count of every pool's: other processes on the machine make theirs too.
    assert.ok(existsSync(p.folder));
    p.close();
    for (const pid of pids) assert.ok(await goneSoon(pid), `launcher ${pid} ended`);
    assert.equal(existsSync(p.folder), false, 'its folder is removed');
    // A program that makes a pool, lets it fill, and forgets it still exits, and leaves no folder.
    const script = `const { LauncherPool } = require(${JSON.stringify(join(__dirname, '../../src/core/exec/launcher.ts'))});
      const p = LauncherPool.create(2, process.env, 'bash'); setTimeout(() => console.log(p.idlePids().length + ' ' + p.folder), 500);`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(child.status, 0, child.stderr);
    const [idle, folder] = child.stdout.trim().split(' ');
    assert.equal(idle, '2');
    assert.ok(folder?.includes('braid-launch-'), child.stdout);
    assert.equal(existsSync(folder!), false, 'and leaves no folder');
  });

  it('a run whose preparation fails still ends the resident launcher it made for itself', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'braid-launch-run-'));
    dirs.push(dir);
    writeFileSync(
      join(dir, 'p.braid.yaml'),
      'version: 1\nname: p\nsteps:\n  a:\n    run: "true"\n  b:\n    run: "true"\n',
    );
    const before = new Set(launchersOf(process.pid, 'braid-resident'));
    let made: number[] = [];
    // The isolator factory runs after the run's record is written, well after its launchers were
    // made: the ones made by then are this run's.
    const failing = runPlan({
      planFile: join(dir, 'p.braid.yaml'),
      workspace: dir,
      compile: { isGit: false },
      isolator: () => {
        made = launchersOf(process.pid, 'braid-resident').filter((p) => !before.has(p));
        throw new Error('no isolator today');
      },
    });
    await assert.rejects(failing, /no isolator today/);
    assert.equal(made.length, 1, 'the run had made its resident launcher before it failed');
    for (const pid of made) assert.ok(await goneSoon(pid), `launcher ${pid} ended with its run`);
  });

  it('an engine killed outright leaves no folder: its launchers see their pipe close and the last removes it', async () => {
    // The child names its pool's folder (the one that appeared), then waits to be killed.
    const script = `const { readdirSync } = require('node:fs'); const { tmpdir } = require('node:os');
      const { LauncherPool } = require(${JSON.stringify(join(__dirname, '../../src/core/exec/launcher.ts'))});
      const list = () => readdirSync(tmpdir()).filter((d) => d.startsWith('braid-launch-'));
      const before = new Set(list()); const p = LauncherPool.create(2, process.env, 'bash');
      const wait = () => p.idlePids().length < 2 ? setTimeout(wait, 10) : console.log(list().find((d) => !before.has(d)) + ' ' + p.idlePids().join(' '));
      wait(); setInterval(() => undefined, 1000);`;
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let line: string;
    try {
      line = await new Promise<string>((resolve, reject) => {
        child.stdout.once('data', (b: Buffer) => resolve(b.toString().trim()));
        child.once('exit', (code) => reject(new Error(`the engine exited (${code}) before naming its folder`)));
      });
    } finally {
      child.kill('SIGKILL');
    }
    const [name, ...pids] = line.split(' ');
    const dir = join(tmpdir(), name!);
    assert.ok(name?.startsWith('braid-launch-'), `the pool's folder: ${line}`);
    assert.equal(pids.length, 2);
    for (const pid of pids) assert.ok(await goneSoon(Number(pid)), `launcher ${pid} ended with its engine`);
    await untilHolds(() => !existsSync(dir), "the pool's folder to be gone");
  });
});
