// The CLI end to end: real processes, real files, the exit codes and JSON events of cli.md.
import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { plan } from '../helpers/planText';

// The bundle users run; built once before the suite (esbuild takes about a second).
const ROOT = resolve(__dirname, '../..');
const MAIN = join(ROOT, 'out/cli.js');
const braid = (args: string[], cwd: string) =>
  spawnSync(process.execPath, [MAIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
const events = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

function workspace(plan: string): { dir: string; plan: string } {
  const dir = mkdtempSync(join(tmpdir(), 'braid-cli-'));
  writeFileSync(join(dir, 'p.braid.yaml'), plan);
  return { dir, plan: join(dir, 'p.braid.yaml') };
}

describe('braid CLI', function () {
  this.timeout(60_000);
  before(() => {
    assert.equal(spawnSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, stdio: 'inherit' }).status, 0);
  });

  it('validate: prints FILE:LINE:COL problems and exits 1; a valid plan exits 0', () => {
    const bad = workspace('version: 1\nsteps:\n  a:\n    run: echo\n    nedds: [b]\n');
    const r = braid(['validate', bad.plan], bad.dir);
    assert.equal(r.status, 1);
    assert.match(r.stdout, /p\.braid\.yaml:5:5: error: .*needs/);
    const good = workspace('version: 1\nsteps:\n  a:\n    run: echo hi\n');
    assert.equal(braid(['validate', good.plan], good.dir).status, 0);
  });

  it('validate warns (stderr, exit 0) about overlapping writers and templates in single quotes', () => {
    const w = workspace(
      plan`
        version: 1
        steps:
          a:
            run: echo '\${{ plan.name }}'
            writes: ["src/**"]
          b:
            run: echo
            writes: [src/a.ts]
          c:
            needs: [a]
            run: echo
            writes: [src/a.ts]
        `,
    );
    const r = braid(['validate', w.plan], w.dir);
    assert.equal(r.status, 0);
    assert.match(
      r.stderr,
      /p\.braid\.yaml:8:13: warning: a and b both write src\/\*\* \/ src\/a\.ts; they will run one after the other/,
    );
    assert.doesNotMatch(r.stderr, /a and c/, 'c needs a: they never run at once');
    assert.match(r.stderr, /12:13: warning: b and c both write src\/a\.ts/);
    assert.match(r.stderr, /p\.braid\.yaml:4:10: warning: .*inside single quotes/);
  });

  it('usage errors exit 2', () => {
    const w = workspace('version: 1\nsteps:\n  a:\n    run: echo\n');
    assert.equal(braid(['frobnicate'], w.dir).status, 2);
    assert.equal(braid(['run', w.plan, '--concurrency', '0'], w.dir).status, 2);
    assert.equal(braid(['run', w.plan, '--only', 'nope'], w.dir).status, 2);
  });

  it('CMD --help prints the help and exits 0, running nothing; after -- it is an argument', () => {
    const w = workspace('version: 1\nsteps:\n  a:\n    run: touch ran\n');
    for (const args of [
      ['run', w.plan, '--help'],
      ['plan', '--help'],
      ['status', '-h'],
      ['validate', '--help'],
      ['export', 'github-actions', '--help'],
    ]) {
      const r = braid(args, w.dir);
      assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stdout, /^braid — run a plan/, args.join(' '));
      assert.equal(r.stderr, '', args.join(' '));
    }
    assert.equal(existsSync(join(w.dir, 'ran')), false, 'nothing ran');
    assert.equal(braid(['validate', '--', '--help'], w.dir).status, 1, 'a file named --help is checked');
  });

  it('run --json: events in order, outputs flow to dependents as data, exit 0; status and logs read the record', () => {
    const w = workspace(
      plan`
        version: 1
        steps:
          a:
            run: |
              printf '%s' "x; touch pwned #"
          b:
            needs: [a]
            run: echo "got \${{ steps.a.output }}"
        `,
    );
    const r = braid(['run', w.plan, '--json'], w.dir);
    assert.equal(r.status, 0, r.stderr);
    const ev = events(r.stdout);
    assert.deepEqual(ev[0]!.type, 'run');
    assert.equal(ev[0]!.status, 'started');
    assert.equal(ev.at(-1)!.status, 'succeeded');
    const runId = ev[0]!.run as string;
    for (const e of ev) {
      assert.equal(e.run, runId);
      assert.ok(!Number.isNaN(Date.parse(e.time as string)));
    }
    const steps = ev.filter((e) => e.type === 'step').map((e) => `${String(e.id)}:${String(e.status)}`);
    assert.deepEqual(steps, ['a:running', 'a:succeeded', 'b:running', 'b:succeeded']);
    const out = ev
      .filter((e) => e.type === 'output' && e.id === 'b')
      .map((e) => e.text)
      .join('');
    assert.equal(out, 'got x; touch pwned #\n');
    assert.equal(existsSync(join(w.dir, 'pwned')), false, 'an output never becomes shell source');
    const st = braid(['status', '--json'], w.dir);
    assert.equal(st.status, 0);
    const rec = JSON.parse(st.stdout);
    assert.equal(rec.id, runId);
    assert.equal(rec.steps.b.status, 'succeeded');
    const logs = braid(['logs', runId, 'b'], w.dir);
    assert.match(logs.stdout, /attempt 1[\s\S]*got x; touch pwned #/);
    const json = JSON.parse(readFileSync(join(w.dir, '.braid/runs', runId, 'run.json'), 'utf8'));
    assert.equal(json.status, 'succeeded');
    assert.equal(readFileSync(join(w.dir, '.braid/.gitignore'), 'utf8').trim(), '*');
  });

  it('a failure exits 1 and skips dependents; retry re-runs what failed and keeps what succeeded', () => {
    const w = workspace(
      plan`
        version: 1
        steps:
          ok:
            run: echo fine
          gate:
            run: test -f fixed
          after:
            needs: [gate, ok]
            run: echo after
        `,
    );
    const r = braid(['run', w.plan, '--json'], w.dir);
    assert.equal(r.status, 1);
    const runId = events(r.stdout)[0]!.run as string;
    const st = JSON.parse(braid(['status', runId, '--json'], w.dir).stdout);
    assert.deepEqual(
      [st.steps.ok.status, st.steps.gate.status, st.steps.after.status],
      ['succeeded', 'failed', 'skipped'],
    );
    writeFileSync(join(w.dir, 'fixed'), '');
    const again = braid(['retry', runId, '--json'], w.dir);
    assert.equal(again.status, 0, again.stderr);
    const ran = events(again.stdout)
      .filter((e) => e.type === 'step' && e.status === 'running')
      .map((e) => e.id)
      .sort();
    assert.deepEqual(ran, ['after', 'gate']);
    const st2 = JSON.parse(braid(['status', runId, '--json'], w.dir).stdout);
    assert.equal(st2.steps.gate.attempts.length, 2);
    assert.equal(st2.steps.ok.attempts.length, 1);
  });

  it('steps writing overlapping paths run one after the other and the wait is announced; disjoint ones overlap', () => {
    const w = workspace(
      plan`
        version: 1
        steps:
          wide:
            run: sleep 0.4
            writes: ["src/**"]
          narrow:
            run: sleep 0.4
            writes: [src/a.ts]
          docs:
            run: sleep 0.4
            writes: ["docs/**"]
        `,
    );
    const r = braid(['run', w.plan, '--json'], w.dir);
    assert.equal(r.status, 0, r.stderr);
    const ev = events(r.stdout);
    const lock = ev.find((e) => e.type === 'lock');
    assert.ok(lock, 'a lock wait is announced');
    const [waiter, holder] = [lock.id as string, lock.waitingFor as string];
    assert.deepEqual([waiter, holder].sort(), ['narrow', 'wide']);
    const rec = JSON.parse(readFileSync(join(w.dir, '.braid/runs', ev[0]!.run as string, 'run.json'), 'utf8'));
    const t = (id: string, k: 'startedAt' | 'endedAt') => Date.parse(rec.steps[id][k]);
    assert.ok(t(waiter, 'startedAt') >= t(holder, 'endedAt'), 'overlapping write sets never run at once');
    assert.ok(
      t('docs', 'startedAt') < t('wide', 'endedAt') && t('docs', 'startedAt') < t('narrow', 'endedAt'),
      'docs runs beside one of them',
    );
  });

  it('SIGINT cancels running steps, records the run and exits 130', async () => {
    const w = workspace(
      'version: 1\nsteps:\n  slow:\n    run: sleep 30\n  later:\n    needs: [slow]\n    run: echo never\n',
    );
    const child = spawn(process.execPath, [MAIN, 'run', w.plan, '--json'], { cwd: w.dir });
    let stdout = '';
    let sent = false; // a second SIGINT force-quits, as on a terminal: send one
    child.stdout.on('data', (d) => {
      stdout += String(d);
      if (!sent && stdout.includes('"status":"running"')) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    assert.equal(code, 130);
    const runId = events(stdout)[0]!.run as string;
    const rec = JSON.parse(readFileSync(join(w.dir, '.braid/runs', runId, 'run.json'), 'utf8'));
    assert.equal(rec.status, 'canceled');
    assert.equal(rec.steps.slow.status, 'canceled');
    assert.equal(rec.steps.later.status, 'canceled');
  });
});
