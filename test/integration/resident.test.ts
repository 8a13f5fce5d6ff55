// The resident launcher against real processes: a step it forks gets what spawn() gives it, leads
// its own process group, is held back when the engine's log falls behind, and never outlives its
// engine, even when the engine and its watchdog are killed outright together.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { LauncherPool } from '../../src/core/exec/launcher';
import { runProcess, type SpawnSpec } from '../../src/core/exec/process';
import { survivors } from '../helpers/engineKill';
import { goneSoon, isGone, launchersOf } from '../helpers/processes';
import { untilHolds } from '../helpers/until';

// A step that ignores TERM and leaves a TERM-ignoring child in its group, printing the child's pid.
const STEP = ['/bin/sh', '-c', 'trap "" TERM; (exec sleep 60) & echo $!; exec sleep 60'];
const PROBE =
  'process.stdout.write(JSON.stringify({ argv: process.argv.slice(1), cwd: process.cwd(), env: process.env }))';

/** Fields of /proc/PID/stat after the command name: [state, ppid, pgrp, session, …]. */
function stat(pid: number): string[] {
  const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return s.slice(s.lastIndexOf(')') + 2).split(' ');
}

describe('exec/resident launcher', function () {
  this.timeout(60_000);
  const pools: LauncherPool[] = [];
  const dirs: string[] = [];
  const pool = (): LauncherPool => {
    const p = LauncherPool.create(2, process.env, 'resident');
    assert.ok(p?.resident, 'perl is on this machine');
    pools.push(p);
    return p;
  };
  after(() => {
    for (const p of pools) p.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('forks the step from the resident, in a group of its own, with what spawn() gives: argv, environment, directory', async () => {
    const p = pool();
    const dir = mkdtempSync(join(tmpdir(), 'braid resident "dir"\n-'));
    dirs.push(dir);
    const env = { PATH: process.env.PATH!, EMPTY: '', ODD: 'a=b\n$(x) ü', 'WEIRD-NAME': 'x', BASH_ENV: '/x' };
    const argv = [process.execPath, '-e', `${PROBE}; setTimeout(() => {}, 60_000)`, 'a b', '', '$(x)', 'ü\n;|&'];
    const spec: SpawnSpec = { argv, cwd: dir, env, signal: AbortSignal.timeout(30_000) };
    let pid = 0;
    let out = '';
    const done = runProcess({
      ...spec,
      launcher: p,
      onSpawn: (n) => (pid = n),
      onOutput: (_s, t) => (out += t),
    });
    await untilHolds(() => out.endsWith('}'), 'the probe to print');
    const [, ppid, pgrp] = stat(pid);
    assert.equal(Number(ppid), p.resident!.pid, 'the resident forked it');
    assert.equal(Number(pgrp), pid, 'it leads its own process group');
    assert.notEqual(pgrp, stat(process.pid)[2], 'not the engine’s group');
    process.kill(-pid, 'SIGTERM');
    const r = await done;
    assert.equal(r.signal, 'SIGTERM');
    const viaResident = JSON.parse(out) as unknown;
    const spawned = await runProcess({ ...spec, argv: [process.execPath, '-e', PROBE, ...argv.slice(3)] });
    // Each process has a mark of its own (marked.ts): equal but for its value.
    const unmarked = (probe: unknown) => {
      const {
        env: { BRAID_PROCESS: mark, ...env },
        ...rest
      } = probe as { env: Record<string, string> };
      assert.match(mark ?? '', /^\d+\.[0-9a-f]+$/);
      return { ...rest, env };
    };
    assert.deepEqual(
      unmarked(viaResident),
      unmarked(JSON.parse(spawned.stdoutTail)),
      'the same argv, environment and directory',
    );
  });

  it('holds a step back while its log is behind (it blocks on its own pipe), then delivers every byte', async () => {
    const p = pool();
    let release: (() => void) | undefined;
    let logged = 0;
    // A log that takes nothing more until told: the engine's disk is "behind".
    const log = new Writable({
      highWaterMark: 16 * 1024,
      write(chunk: Buffer, _e, cb) {
        logged += chunk.length;
        if (logged < 256 * 1024) return cb();
        release = cb;
      },
    });
    let pid = 0;
    const size = 8_000_000;
    const done = runProcess({
      argv: ['/bin/sh', '-c', `head -c ${size} /dev/zero; echo finished >&2`],
      cwd: tmpdir(),
      env: { PATH: process.env.PATH! },
      launcher: p,
      log,
      onSpawn: (n) => (pid = n),
    });
    await untilHolds(() => release !== undefined, 'the log to fall behind');
    // head blocks writing into its full pipe: the resident stopped reading it.
    const head = (): number | undefined =>
      [pid, ...childrenOf(pid)].find((c) => {
        try {
          return readFileSync(`/proc/${c}/cmdline`, 'utf8').startsWith('head');
        } catch {
          return false;
        }
      });
    // Until head stops (blocked on its full pipe, writing nothing more between two looks) or ends.
    let h: number | undefined;
    let wrote = -1;
    let last = -2;
    await untilHolds(() => {
      h ??= head();
      if (h === undefined) return false;
      if (isGone(h)) return true;
      last = wrote;
      wrote = Number(/wchar: (\d+)/.exec(readFileSync(`/proc/${h}/io`, 'utf8'))?.[1]);
      return wrote === last && readFileSync(`/proc/${h}/wchan`, 'utf8').includes('pipe_write');
    }, 'the step to block on its pipe, or end');
    assert.ok(!isGone(h!), 'the step did not run to its end while its log was behind');
    assert.ok(wrote < 2 * 1024 * 1024, `the step wrote at most a few buffers while held, got ${wrote}`);
    const go = release!;
    release = undefined;
    log._write = (chunk: Buffer, _e, cb) => {
      logged += chunk.length;
      cb();
    };
    go();
    const r = await done;
    assert.equal(r.exitCode, 0);
    assert.equal(logged, size + 'finished\n'.length);
  });

  it('a resident killed from outside: its running step is KILLed and reported, the next starts from a new one', async () => {
    const p = pool();
    const first = p.resident!.pid;
    let pid = 0;
    const done = runProcess({
      argv: ['/bin/sh', '-c', 'trap "" TERM; echo up; exec sleep 60'],
      cwd: tmpdir(),
      env: { PATH: process.env.PATH! },
      launcher: p,
      onSpawn: (n) => (pid = n),
    });
    await untilHolds(() => pid !== 0, 'the step to start');
    process.kill(first, 'SIGKILL');
    const r = await done;
    assert.equal(r.signal, 'SIGKILL');
    assert.ok(await goneSoon(pid), 'the step is gone');
    const next = await runProcess({
      argv: ['/bin/sh', '-c', 'echo $PPID'],
      cwd: tmpdir(),
      env: { PATH: process.env.PATH! },
      launcher: p,
    });
    assert.notEqual(p.resident!.pid, first);
    assert.equal(Number(next.stdoutTail), p.resident!.pid, 'a new resident forked the next step');
  });

  it('a process that made and closed many pools still gets a resident launcher in the next one', async () => {
    for (let i = 0; i < 8; i++) {
      const p = LauncherPool.create(1, process.env, 'resident')!;
      const pid = p.resident?.pid;
      assert.ok(pid !== undefined, `pool ${i + 1} has its resident`);
      p.close();
      assert.ok(await goneSoon(pid), `resident ${pid} ended with its pool`);
    }
    const p = pool();
    const r = await runProcess({
      argv: ['/bin/sh', '-c', 'echo $PPID'],
      cwd: tmpdir(),
      env: { PATH: process.env.PATH! },
      launcher: p,
    });
    assert.equal(Number(r.stdoutTail), p.resident!.pid);
  });

  it('kill -9 of the engine and its watchdog together: the resident alone ends the TERM-ignoring steps', async () => {
    // An engine that starts two TERM-ignoring steps from its resident and prints its watchdog's,
    // its resident's and the steps' pids.
    const src = join(__dirname, '../../src/core/exec');
    const script = `const { LauncherPool } = require(${JSON.stringify(join(src, 'launcher.ts'))});
      const { runProcess } = require(${JSON.stringify(join(src, 'process.ts'))});
      const { watchdogPid } = require(${JSON.stringify(join(src, 'watchdog.ts'))});
      const p = LauncherPool.create(2, process.env, 'resident'); const pids = [];
      for (let i = 0; i < 2; i++) runProcess({ argv: ${JSON.stringify(STEP)}, cwd: '/', env: { PATH: process.env.PATH }, launcher: p,
        onOutput: (_s, t) => { pids.push(Number(t)); if (pids.length === 4) console.log([watchdogPid(), p.resident.pid, ...pids].join(' ')); },
        onSpawn: (n) => pids.push(n) });`;
    const engine = spawn(process.execPath, ['--import', 'tsx', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve, reject) => {
      let text = '';
      engine.stdout.on('data', (b: Buffer) => {
        text += b.toString();
        if (text.includes('\n')) resolve(text.trim());
      });
      engine.once('exit', (code) => reject(new Error(`the engine exited (${code}) first`)));
    });
    const [watchdog, resident, ...steps] = line.split(' ').map(Number);
    assert.equal(steps.length, 4, line);
    assert.ok(
      steps.every((s) => !isGone(s)),
      'the steps and their children run',
    );
    assert.deepEqual(launchersOf(engine.pid!, 'braid-resident'), [resident]);
    engine.kill('SIGKILL');
    process.kill(watchdog!, 'SIGKILL');
    const left = await survivors([...steps, resident!], 15_000);
    for (const s of left)
      try {
        process.kill(s, 'SIGKILL');
      } catch {
        /* gone */
      }
    assert.deepEqual(left, [], 'steps (or the resident) outlived their engine');
  });

  it('never keeps its engine alive: a program that ran a step and forgot its pool exits, and so does the resident', async () => {
    const src = join(__dirname, '../../src/core/exec');
    const script = `const { LauncherPool } = require(${JSON.stringify(join(src, 'launcher.ts'))});
      const { runProcess } = require(${JSON.stringify(join(src, 'process.ts'))});
      const p = LauncherPool.create(2, process.env, 'resident');
      runProcess({ argv: ['true'], cwd: '/', env: { PATH: process.env.PATH }, launcher: p }).then((r) => console.log(p.resident.pid, r.exitCode));`;
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 0);
    const [resident, exit] = out.trim().split(' ').map(Number);
    assert.equal(exit, 0);
    assert.ok(await goneSoon(resident!), 'the resident ended with its engine');
  });
});

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}
