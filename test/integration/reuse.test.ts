// `braid run --only STEP` reuses what its needs already did: real processes, real files. Each step
// appends to a counter file, so a step that ran again is seen on disk, not only in the record.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { RunRecord } from '../../src/core/engine/records/runRecord';
import { throwaway } from '../helpers/throwaway';
import { plan } from '../helpers/planText';

const ROOT = resolve(__dirname, '../..');
const MAIN = join(ROOT, 'out/cli.js');
const braid = (args: string[], cwd: string) =>
  spawnSync(process.execPath, [MAIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
const events = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const runOf = (stdout: string) => String(events(stdout)[0]!.run);

/** a → b → c; each counts its runs in `<id>.count` and prints a line its dependent gets as data. */
function chain(bCommand = 'echo "b saw $A"'): string {
  return plan`
    version: 1
    steps:
      a:
        run: echo x >> a.count; echo "from a"
      b:
        needs: [a]
        env: { A: "\${{ steps.a.output }}" }
        run: echo x >> b.count; ${bCommand}
      c:
        needs: [b]
        env: { B: "\${{ steps.b.output }}" }
        run: echo x >> c.count; echo "c saw $B" > c.out
    `;
}

describe('run --only reuses what its needs did', function () {
  this.timeout(60_000);
  let dir: string;
  let file: string;
  const count = (id: string) =>
    existsSync(join(dir, `${id}.count`))
      ? readFileSync(join(dir, `${id}.count`), 'utf8')
          .split('\n')
          .filter(Boolean).length
      : 0;
  const counts = () => ({ a: count('a'), b: count('b'), c: count('c') });
  const write = (text: string) => writeFileSync(file, text);
  const record = (runId: string) =>
    JSON.parse(readFileSync(join(dir, '.braid', 'runs', runId, 'run.json'), 'utf8')) as RunRecord;

  before(() => {
    assert.equal(spawnSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, stdio: 'inherit' }).status, 0);
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'braid-reuse-'));
    file = join(dir, 'p.braid.yaml');
    write(chain());
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a and b are not run again, are recorded reused, and c gets their outputs; a changed b runs again, a does not', () => {
    const first = braid(['run', file, '--json'], dir);
    assert.equal(first.status, 0, first.stderr);
    const firstRun = runOf(first.stdout);
    assert.deepEqual(counts(), { a: 1, b: 1, c: 1 });

    const only = braid(['run', file, '--only', 'c', '--json'], dir);
    assert.equal(only.status, 0, only.stderr);
    assert.deepEqual(counts(), { a: 1, b: 1, c: 2 }, 'only c ran');
    assert.equal(readFileSync(join(dir, 'c.out'), 'utf8'), 'c saw b saw from a\n', "c got b's output, which got a's");
    const ev = events(only.stdout);
    const reusedEvents = ev.filter((e) => e.type === 'step' && e.reused !== undefined);
    assert.deepEqual(
      reusedEvents.map((e) => [e.id, e.status, (e.reused as { run: string }).run]),
      [
        ['a', 'succeeded', firstRun],
        ['b', 'succeeded', firstRun],
      ],
    );
    assert.ok(!ev.some((e) => e.type === 'step' && e.status === 'running' && e.id !== 'c'), 'nothing but c started');
    assert.equal((ev.find((e) => e.type === 'run' && e.status === 'started') as { steps: number }).steps, 1);
    const rec = record(runOf(only.stdout));
    assert.deepEqual(rec.steps['a']!.reused?.run, firstRun);
    assert.equal(rec.steps['a']!.status, 'succeeded');
    assert.equal(rec.steps['b']!.attempts.length, 0);
    assert.equal(rec.steps['c']!.reused, undefined);
    assert.equal(
      readFileSync(join(dir, '.braid', 'runs', rec.id, 'outputs', 'b'), 'utf8'),
      'b saw from a',
      'the reused output is kept with the run',
    );

    // A reuse of a reuse names the run that ran it.
    const again = braid(['run', file, '--only', 'c', '--json'], dir);
    assert.equal(again.status, 0, again.stderr);
    assert.deepEqual(counts(), { a: 1, b: 1, c: 3 });
    assert.equal(record(runOf(again.stdout)).steps['b']!.reused?.run, firstRun);

    // b changes: b (and c after it) run, a is still reused.
    write(chain('echo "b now saw $A"'));
    const changed = braid(['run', file, '--only', 'c'], dir);
    assert.equal(changed.status, 0, changed.stderr);
    assert.deepEqual(counts(), { a: 1, b: 2, c: 4 });
    assert.equal(readFileSync(join(dir, 'c.out'), 'utf8'), 'c saw b now saw from a\n');
    // The human summary marks what was reused.
    assert.match(
      changed.stdout,
      /^a\s+succeeded\s+-\s+\S+\s+reused from run \d{8}-\d{6}-[0-9a-f]{4}$/m,
      changed.stdout,
    );
    assert.match(changed.stdout, /^b\s+succeeded\s+1\s/m);
  });

  it('--fresh runs every need again; --dry-run says what would be reused; --fresh alone is a usage error', () => {
    assert.equal(braid(['run', file], dir).status, 0);
    const dry = braid(['run', file, '--only', 'c', '--dry-run'], dir);
    assert.equal(dry.status, 0, dry.stderr);
    assert.match(dry.stdout, /would run 1 of 3 steps/);
    assert.match(
      dry.stdout,
      /would reuse 2 \(--fresh runs them again\):\n {2}a · from run \S+\n {2}b · from run \S+\n/,
    );
    const dryJson = JSON.parse(braid(['run', file, '--only', 'c', '--dry-run', '--json'], dir).stdout) as {
      selected: string[];
      reused: Array<{ id: string }>;
    };
    assert.deepEqual([dryJson.selected, dryJson.reused.map((r) => r.id)], [['c'], ['a', 'b']]);
    assert.match(braid(['run', file, '--only', 'c', '--dry-run', '--fresh'], dir).stdout, /would run 3 steps/);
    assert.deepEqual(counts(), { a: 1, b: 1, c: 1 }, 'dry runs run nothing');

    const fresh = braid(['run', file, '--only', 'c', '--fresh', '--json'], dir);
    assert.equal(fresh.status, 0, fresh.stderr);
    assert.deepEqual(counts(), { a: 2, b: 2, c: 2 });
    assert.ok(!events(fresh.stdout).some((e) => e.reused !== undefined));

    const usage = braid(['run', file, '--fresh'], dir);
    assert.equal(usage.status, 2);
    assert.match(usage.stderr, /--fresh goes with --only/);
  });

  it('a need that failed the last time it ran runs again, and so does what comes after it', () => {
    // b fails while `broken` exists.
    writeFileSync(join(dir, 'broken'), '');
    write(chain('test ! -e broken && echo "b saw $A"'));
    assert.equal(braid(['run', file], dir).status, 1);
    assert.deepEqual(counts(), { a: 1, b: 1, c: 0 });
    rmSync(join(dir, 'broken'));
    const only = braid(['run', file, '--only', 'c', '--json'], dir);
    assert.equal(only.status, 0, only.stderr);
    assert.deepEqual(counts(), { a: 1, b: 2, c: 1 }, 'a reused; b, which failed, ran');
    const reused = events(only.stdout)
      .filter((e) => e.reused !== undefined)
      .map((e) => e.id);
    assert.deepEqual(reused, ['a']);
  });

  it('a whole run and --from never reuse', () => {
    assert.equal(braid(['run', file], dir).status, 0);
    assert.equal(braid(['run', file], dir).status, 0);
    assert.deepEqual(counts(), { a: 2, b: 2, c: 2 });
    const from = braid(['run', file, '--from', 'b', '--json'], dir);
    assert.equal(from.status, 0, from.stderr);
    assert.deepEqual(counts(), { a: 2, b: 3, c: 3 }, '--from keeps a as it was and runs b and c');
    assert.ok(!events(from.stdout).some((e) => e.reused !== undefined));
  });
});

describe('run --only and worktree needs', function () {
  this.timeout(60_000);
  const { repo, planFile } = throwaway('braid-reuse-wt-');
  const inRepo = (args: string[], dir: string) => braid([...args, '--workspace', dir], dir);
  const wouldReuse = (plan: string, dir: string) =>
    (
      JSON.parse(inRepo(['run', plan, '--only', 'b', '--dry-run', '--json'], dir).stdout) as {
        reused: Array<{ id: string }>;
      }
    ).reused.map((r) => r.id);

  before(() => {
    assert.equal(spawnSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, stdio: 'inherit' }).status, 0);
  });

  it('a need whose change landed is reused (its change is in the workspace); once reverted, it runs again', () => {
    const r = repo({ 'README.md': 'hi\n' });
    const planPath = planFile(plan`
      version: 1
      steps:
        a:
          isolation: worktree
          writes: [a.txt]
          run: printf "from a\\n" > a.txt
        b:
          needs: [a]
          run: cat a.txt
      `);
    const first = inRepo(['run', planPath, '--json'], r.dir);
    assert.equal(first.status, 0, first.stderr);
    const runId = runOf(first.stdout);
    assert.equal(r.read('a.txt'), 'from a\n', 'landed');
    assert.deepEqual(wouldReuse(planPath, r.dir), ['a']);
    const only = inRepo(['run', planPath, '--only', 'b', '--json'], r.dir);
    assert.equal(only.status, 0, only.stderr);
    assert.deepEqual(
      events(only.stdout)
        .filter((e) => e.reused !== undefined)
        .map((e) => e.id),
      ['a'],
    );
    assert.ok(!events(only.stdout).some((e) => e.type === 'step' && e.id === 'a' && e.status === 'running'));

    const revert = braid(['revert', runId, 'a'], r.dir);
    assert.equal(revert.status, 0, revert.stderr);
    assert.equal(existsSync(join(r.dir, 'a.txt')), false);
    assert.deepEqual(wouldReuse(planPath, r.dir), [], 'its change is no longer in the workspace');
  });

  it('a need whose change was rejected in review is not reused', async () => {
    const r = repo({ 'README.md': 'hi\n' });
    const planPath = planFile(plan`
      version: 1
      steps:
        a:
          isolation: worktree
          review: true
          writes: [a.txt]
          run: printf "from a\\n" > a.txt
        b:
          needs: [a]
          run: cat a.txt
      `);
    const child = spawn(process.execPath, [MAIN, 'run', planPath, '--json', '--workspace', r.dir], {
      cwd: r.dir,
      env: { ...process.env, NO_COLOR: '1' },
    });
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    const runId = await new Promise<string>((done) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        const e = JSON.parse(line) as Record<string, unknown>;
        if (e.type === 'step' && e.id === 'a' && e.status === 'review') done(String(e.run));
      });
    });
    assert.equal(braid(['reject', runId, 'a'], r.dir).status, 0);
    assert.equal(await exited, 1);
    assert.deepEqual(wouldReuse(planPath, r.dir), []);
  });
});
