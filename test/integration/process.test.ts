import { strict as assert } from 'node:assert';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { pendingKills } from '../../src/core/exec/killTree';
import { LauncherPool } from '../../src/core/exec/launcher';
import { runProcess, shellArgv, type SpawnSpec } from '../../src/core/exec/process';
import { goneSoon, isGone } from '../helpers/processes';
import { openStepLog } from '../../src/core/engine/records/stepLog';
import { ByteTail } from '../../src/core/exec/tail';

const FIX = join(__dirname, '..', 'fixtures', 'proc');
const ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

const sh = (fixture: string, ...args: string[]): string[] => ['/bin/sh', join(FIX, fixture), ...args];
// Each behaviour is checked twice: spawned by the engine, and forked by the resident launcher (resident.ts).
let launcher: LauncherPool | undefined;
const run = (argv: string[], more: Partial<SpawnSpec> = {}) =>
  runProcess({ argv, cwd: FIX, env: ENV, graceMs: 200, ...(launcher ? { launcher } : {}), ...more });

function collect(): {
  spec: Pick<SpawnSpec, 'onOutput' | 'log'>;
  out: string[];
  err: string[];
  chunks: [string, string][];
  log: () => string;
} {
  const out: string[] = [];
  const err: string[] = [];
  const chunks: [string, string][] = [];
  const log = new PassThrough();
  const logged: Buffer[] = [];
  log.on('data', (b: Buffer) => logged.push(b));
  return {
    spec: {
      log,
      onOutput: (s, t) => {
        (s === 'stdout' ? out : err).push(t);
        chunks.push([s, t]);
      },
    },
    out,
    err,
    chunks,
    log: () => Buffer.concat(logged).toString('utf8'),
  };
}

for (const via of ['spawned', 'from the resident launcher'] as const)
  describe(`runProcess (${via})`, function () {
    this.timeout(10_000);
    before(() => {
      launcher = via === 'spawned' ? undefined : LauncherPool.create(2, process.env, 'resident');
      if (via !== 'spawned') assert.ok(launcher?.resident, 'perl is on this machine');
    });
    after(() => {
      launcher?.close();
      launcher = undefined;
      return pendingKills();
    });

    it('reports exit code 0 and the tail of stdout', async () => {
      const r = await run(sh('exit-code.sh', '0'));
      assert.equal(r.reason, 'exit');
      assert.equal(r.exitCode, 0);
      assert.equal(r.signal, null);
      assert.equal(r.stdoutTail, 'exiting 0\n');
      assert.equal(typeof r.pid, 'number');
      assert.equal(r.message, undefined);
    });

    it('reports a non-zero exit code as a result', async () => {
      const r = await run(sh('exit-code.sh', '3'));
      assert.equal(r.reason, 'exit');
      assert.equal(r.exitCode, 3);
      assert.equal(r.signal, null);
    });

    it('records a death by signal as signal SIGKILL and exitCode null', async () => {
      const r = await run(sh('self-kill.sh'));
      assert.equal(r.reason, 'exit');
      assert.equal(r.exitCode, null);
      assert.equal(r.signal, 'SIGKILL');
      assert.equal(r.stdoutTail, 'before\n');
    });

    it('streams stdout and stderr to onOutput and interleaves both into the log in arrival order', async () => {
      const c = collect();
      const r = await run(sh('interleave.sh'), c.spec);
      assert.equal(r.exitCode, 0);
      assert.deepEqual(c.out.join(''), 'out1\nout2\n');
      assert.deepEqual(c.err.join(''), 'err1\n');
      assert.deepEqual(
        c.chunks.map(([s]) => s),
        ['stdout', 'stderr', 'stdout'],
      );
      assert.equal(c.log(), 'out1\nerr1\nout2\n');
      assert.equal(r.stdoutTail, 'out1\nout2\n', 'the tail is stdout only');
    });

    it('decodes a multi-byte character split across chunks whole, on both streams', async () => {
      const c = collect();
      await run(sh('split-utf8.sh'), c.spec);
      assert.equal(c.out.join(''), '€\n');
      assert.equal(c.err.join(''), '€\n');
      for (const [, text] of c.chunks)
        assert.ok(!text.includes('\uFFFD'), `chunk ${JSON.stringify(text)} holds a replacement character`);
      assert.equal(c.log(), '€\n€\n');
    });

    it('keeps only the last tailBytes of stdout', async () => {
      const r = await run(sh('count.sh', '5000'), { tailBytes: 100 });
      let all = '';
      for (let i = 0; i < 5000; i++) all += `line ${i}\n`;
      assert.equal(r.stdoutTail, all.slice(-100));
      const none = await run(sh('count.sh', '10'), { tailBytes: 0 });
      assert.equal(none.stdoutTail, '');
    });

    it('delivers stdin, then closes it; without stdin the child reads end-of-file at once', async () => {
      const text = 'hello\nwörld "$(rm -rf /)"\n';
      const r = await run(['cat'], { stdin: text });
      assert.equal(r.stdoutTail, text);
      const empty = await run(['cat']);
      assert.equal(empty.exitCode, 0);
      assert.equal(empty.stdoutTail, '');
    });

    it('passes exactly the given environment', async () => {
      process.env.BRAID_TEST_LEAK = 'leaked';
      try {
        const r = await run(shellArgv('echo "FOO=$FOO LEAK=${BRAID_TEST_LEAK-unset}"'), {
          env: { ...ENV, FOO: 'bar baz' },
        });
        assert.equal(r.stdoutTail, 'FOO=bar baz LEAK=unset\n');
      } finally {
        delete process.env.BRAID_TEST_LEAK;
      }
    });

    it('on timeout kills the whole tree, grandchild included', async () => {
      const r = await run(sh('tree.sh'), { timeoutMs: 300 });
      assert.equal(r.reason, 'timeout');
      assert.equal(r.message, 'timed out after 300ms');
      assert.equal(r.exitCode, null);
      assert.equal(r.signal, 'SIGTERM');
      const grandchild = Number(r.stdoutTail.trim());
      assert.ok(grandchild > 0, `fixture printed ${JSON.stringify(r.stdoutTail)}`);
      assert.ok(await goneSoon(grandchild), `grandchild ${grandchild} still alive`);
    });

    it('KILLs a grandchild that ignores TERM, after the grace period', async () => {
      const r = await run(sh('tree-ignore-term.sh'), { timeoutMs: 200, graceMs: 200 });
      assert.equal(r.reason, 'timeout');
      const grandchild = Number(r.stdoutTail.trim());
      assert.ok(grandchild > 0);
      // It held our stdout, so the result came only once the KILL closed the pipe.
      assert.ok(await goneSoon(grandchild), `grandchild ${grandchild} survived the KILL`);
    });

    it('KILLs a child that traps TERM, after the grace period', async () => {
      const c = collect();
      const r = await run(sh('trap-term.sh'), { timeoutMs: 200, ...c.spec });
      assert.equal(r.reason, 'timeout');
      assert.equal(r.signal, 'SIGKILL');
      assert.equal(r.exitCode, null);
      assert.match(c.out.join(''), /^ready\n(term\n)+$/, 'the child saw TERM and lived on');
    });

    it('on a normal exit still ends background jobs left in the group', async () => {
      const r = await run(sh('leftover.sh'));
      assert.equal(r.reason, 'exit');
      assert.equal(r.exitCode, 0);
      const leftover = Number(r.stdoutTail.trim());
      assert.ok(leftover > 0);
      // The group gets TERM when the main process exits; delivery is asynchronous, so allow it a
      // bounded moment (a liveness bound, not a timing claim).
      assert.ok(await goneSoon(leftover), `leftover ${leftover} still alive`);
    });

    it('does not hang on a pipe held open by a process that left the group', async () => {
      const r = await run(['node', join(FIX, 'escape.mjs')]);
      const escaped = Number(r.stdoutTail.trim());
      try {
        assert.equal(r.reason, 'exit');
        assert.equal(r.exitCode, 0);
        assert.ok(escaped > 0);
        assert.equal(
          isGone(escaped),
          false,
          'a normal exit leaves a process that left the group be (a daemon on purpose)',
        );
      } finally {
        if (escaped > 0) process.kill(escaped, 'SIGKILL');
      }
    });

    it('stopping a step ends the processes that left its group too, by their mark', async () => {
      const ac = new AbortController();
      const r = await run(sh('escape-and-wait.sh'), { signal: ac.signal, onOutput: () => ac.abort() });
      assert.equal(r.reason, 'canceled');
      const escaped = Number(r.stdoutTail.trim());
      assert.ok(escaped > 0, `fixture printed ${JSON.stringify(r.stdoutTail)}`);
      try {
        assert.ok(await goneSoon(escaped), `${escaped} left the group and outlived the stop`);
      } finally {
        if (!isGone(escaped)) process.kill(escaped, 'SIGKILL');
      }
    });

    it('marks each process with a mark of its own, whatever mark its environment held', async () => {
      const [a, b] = await Promise.all(
        [1, 2].map(() => run(shellArgv('echo "$BRAID_PROCESS"'), { env: { ...ENV, BRAID_PROCESS: 'host' } })),
      );
      const marks = [a!.stdoutTail.trim(), b!.stdoutTail.trim()];
      assert.ok(
        marks.every((m) => m !== '' && m !== 'host'),
        marks.join(' '),
      );
      assert.notEqual(marks[0], marks[1]);
    });

    it('idle-timeout fires for a silent process', async () => {
      const r = await run(sh('silent.sh'), { idleTimeoutMs: 200 });
      assert.equal(r.reason, 'idle-timeout');
      assert.equal(r.message, 'no output for 200ms');
      assert.equal(r.signal, 'SIGTERM');
      assert.equal(r.stdoutTail, 'ready\n');
    });

    it('idle-timeout does not fire for a process printing steadily past the idle limit', async () => {
      const r = await run(sh('steady.sh'), { idleTimeoutMs: 300 });
      assert.equal(r.reason, 'exit');
      assert.equal(r.exitCode, 0);
      assert.equal(r.stdoutTail, 'tick\n'.repeat(20));
    });

    it('an abort cancels the tree: reason canceled', async () => {
      const ac = new AbortController();
      const r = await run(sh('tree.sh'), { signal: ac.signal, onOutput: () => ac.abort() });
      assert.equal(r.reason, 'canceled');
      assert.equal(r.message, 'canceled');
      assert.equal(r.signal, 'SIGTERM');
      const grandchild = Number(r.stdoutTail.trim());
      assert.ok(grandchild > 0);
      assert.ok(await goneSoon(grandchild), `grandchild ${grandchild} still alive`);
    });

    it('an already aborted signal spawns nothing', async () => {
      const ac = new AbortController();
      ac.abort();
      const r = await run(sh('exit-code.sh', '0'), { signal: ac.signal });
      assert.equal(r.reason, 'canceled');
      assert.equal(r.pid, undefined);
      assert.equal(r.stdoutTail, '');
    });

    it('the first reason wins: a timeout then an abort stays a timeout', async () => {
      const ac = new AbortController();
      // The child answers TERM on stdout; the abort comes only after that, during the grace period.
      const r = await run(sh('trap-term.sh'), {
        timeoutMs: 150,
        signal: ac.signal,
        onOutput: (_s, t) => {
          if (t.includes('term')) ac.abort();
        },
      });
      assert.ok(ac.signal.aborted, 'the abort happened');
      assert.equal(r.reason, 'timeout');
      assert.equal(r.message, 'timed out after 150ms');
      assert.equal(r.signal, 'SIGKILL');
    });

    it('a NUL byte in an argument or a variable is a spawn-failed result naming which', async () => {
      const inEnv = await run(shellArgv('true'), { env: { ...ENV, BRAID_STEPS_A_OUTPUT: 'bin\0ary' } });
      assert.equal(inEnv.reason, 'spawn-failed');
      assert.match(inEnv.message ?? '', /^\$BRAID_STEPS_A_OUTPUT holds a NUL byte/);
      const inArgv = await run(['/bin/echo', 'ok', 'bin\0ary']);
      assert.equal(inArgv.reason, 'spawn-failed');
      assert.match(inArgv.message ?? '', /^argument 2 of echo holds a NUL byte/);
    });

    it('a command that does not exist is a spawn-failed result', async () => {
      const r = await run(['braid-no-such-command-xyz', 'arg']);
      assert.equal(r.reason, 'spawn-failed');
      assert.equal(r.exitCode, null);
      assert.equal(r.pid, undefined);
      assert.equal(r.message, 'spawn braid-no-such-command-xyz ENOENT');
    });

    it('a file that is not executable is a spawn-failed result', async () => {
      const r = await run([join(FIX, 'exit-code.sh')]);
      assert.equal(r.reason, 'spawn-failed');
      assert.match(r.message ?? '', /EACCES/);
    });

    it('a missing cwd, or a cwd that is a file, is a spawn-failed result naming the cwd', async () => {
      const missing = join(FIX, 'no-such-dir');
      const r = await run(shellArgv('true'), { cwd: missing });
      assert.equal(r.reason, 'spawn-failed');
      assert.ok(r.message?.startsWith(`cwd ${missing} is not a directory`), r.message);
      const file = join(FIX, 'count.sh');
      const f = await run(shellArgv('true'), { cwd: file });
      assert.equal(f.reason, 'spawn-failed');
      assert.ok(f.message?.startsWith(`cwd ${file} is not a directory`), f.message);
    });

    it('rejects malformed options eagerly with the received value', () => {
      assert.throws(() => runProcess({ argv: [], cwd: FIX, env: ENV }), /argv must start with an executable, got \[\]/);
      assert.throws(
        () => runProcess({ argv: ['true'], cwd: FIX, env: ENV, timeoutMs: -1 }),
        /timeoutMs must be a positive number, got -1/,
      );
      assert.throws(() => runProcess({ argv: ['true'], cwd: FIX, env: ENV, graceMs: Number.NaN }), /graceMs/);
    });

    it('shellArgv runs a script through /bin/sh -c', async () => {
      assert.deepEqual(shellArgv('echo hi'), ['/bin/sh', '-c', 'echo hi']);
      const r = await run(shellArgv('echo "$((1 + 2))"'));
      assert.equal(r.stdoutTail, '3\n');
    });
  });

describe('ByteTail', () => {
  it('drops a character cut by the window instead of opening with U+FFFD', () => {
    const t = new ByteTail(4);
    t.push(Buffer.from('ab'));
    t.push(Buffer.from('c€')); // c E2 82 AC: the last 4 bytes are exactly "c€"
    assert.equal(t.text(), 'c€');
    const cut = new ByteTail(2);
    cut.push(Buffer.from('a€')); // last 2 bytes are 82 AC, half a character
    assert.equal(cut.text(), '');
    const whole = new ByteTail(100);
    whole.push(Buffer.from('é'));
    assert.equal(whole.text(), 'é');
  });
});

describe('openStepLog', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'braid-steplog-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('creates parent dirs, appends attempts under headers, and close() flushes', async () => {
    const path = join(dir, 'runs', 'r1', 'logs', 'build.log');
    const first = await openStepLog(path, 1, 'build');
    await run(sh('interleave.sh'), { log: first.stream });
    await first.close();
    await first.close(); // idempotent
    const second = await openStepLog(path, 2, 'build');
    second.stream.write('again\n');
    await second.close();
    const lines = (await readFile(path, 'utf8')).split('\n');
    assert.match(lines[0]!, /^──── attempt 1 · build · \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z ────$/);
    assert.deepEqual(lines.slice(1, 4), ['out1', 'err1', 'out2']);
    assert.match(lines[4]!, /^──── attempt 2 · build · .* ────$/);
    assert.deepEqual(lines.slice(5), ['again', '']);
  });

  it('starts the header on its own line after an attempt cut mid-line', async () => {
    const path = join(dir, 'x.log');
    await writeFile(path, 'partial');
    const log = await openStepLog(path, 2, 'x');
    await log.close();
    const lines = (await readFile(path, 'utf8')).split('\n');
    assert.equal(lines[0], 'partial');
    assert.match(lines[1]!, /^──── attempt 2 · x · /);
  });

  it('close() rejects with a write error instead of crashing', async () => {
    // A directory where the file should be: the open fails with EISDIR.
    const log = await openStepLog(dir, 1, 'x');
    await assert.rejects(log.close(), /EISDIR/);
  });
});
