// Preparing worktrees ahead: when a step's preparation is asked for (a fake isolator and event
// stream), and, through runPlan against a real git, that a dependent's worktree is made and set up
// while its need still runs, sees its need's result, and never lingers or fails the step.
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Disposable } from '../../src/core/disposable';
import { Emitter, type Listener as Of } from '../../src/core/emitter';
import type { EngineEvent } from '../../src/core/engine/types';
type Listener = Of<EngineEvent>;
import { prepareAhead, type PreparingIsolator } from '../../src/core/engine/isolation/prepareAhead';
import type { StepStatus } from '../../src/core/status';
import { touchesSetupInputs } from '../../src/core/engine/isolation/worktreeSetup';
import type { TestRepo } from '../helpers/gitRepo';
import { throwaway } from '../helpers/throwaway';
import { makeGraph, type StepSpec } from '../helpers/graph';
import { runInRepo as run } from '../helpers/runInRepo';
import { worktreesRoot } from '../../src/core/engine/records/worktreeHome';
import { plan } from '../helpers/planText';

const { repo, planFile, cleanup } = throwaway('braid-ahead-');

function tempDir(tag: string): string {
  const dir = mkdtempSync(join(tmpdir(), `braid-ahead-${tag}-`));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** An isolator whose preparations finish when the test says so. */
class FakeIsolator implements PreparingIsolator {
  readonly calls: string[] = [];
  readonly discarded: string[] = [];
  inFlight = 0;
  maxInFlight = 0;
  private readonly finish = new Map<string, (ok: boolean) => void>();
  around(): never {
    throw new Error('not used');
  }
  prepare(id: string): Promise<boolean> {
    this.calls.push(id);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    return new Promise<boolean>((resolve) =>
      this.finish.set(id, (ok) => {
        this.inFlight--;
        resolve(ok);
      }),
    );
  }
  async discard(id: string): Promise<void> {
    this.discarded.push(id);
  }
  done(id: string, ok = true): void {
    this.finish.get(id)!(ok);
  }
}

const tick = () => new Promise((r) => setImmediate(r));

describe('prepareAhead: when a worktree is prepared', () => {
  const wt = (s: StepSpec): StepSpec => ({ isolation: 'worktree', ...s });
  let bus: Emitter<EngineEvent>;
  const step = (id: string, status: StepStatus) =>
    bus.fire({ type: 'step', id, status, attempt: 1, time: '', run: 'r' });
  beforeEach(() => {
    bus = new Emitter<EngineEvent>();
  });

  it('asks once every need has started, not at the first one, and never for a step whose attempt began', async () => {
    const g = makeGraph([
      wt({ id: 'a' }),
      wt({ id: 'b' }),
      wt({ id: 'join', needs: ['a', 'b'] }),
      wt({ id: 'next', needs: ['join'] }),
    ]);
    const iso = new FakeIsolator();
    const ahead = prepareAhead(g, iso, bus);
    step('a', 'running');
    await tick();
    assert.deepEqual(iso.calls, [], 'b has not started: join is not about to become ready');
    step('b', 'running');
    await tick();
    assert.deepEqual(iso.calls, ['join']);
    step('join', 'running');
    step('a', 'succeeded');
    await tick();
    assert.deepEqual(iso.calls, ['join', 'next'], 'join running makes next the one to prepare');
    iso.done('join');
    iso.done('next');
    await ahead.close();
  });

  it('leaves out steps a prepared tree could not serve: shared needs, unselected needs, shared steps, failed needs', async () => {
    const g = makeGraph([
      wt({ id: 'a' }),
      { id: 'sh' },
      wt({ id: 'old' }),
      wt({ id: 'afterShared', needs: ['a', 'sh'] }),
      wt({ id: 'afterOld', needs: ['a', 'old'] }),
      { id: 'sharedDep', needs: ['a'] },
      wt({ id: 'onFailure', needs: ['a'], if: 'failure' }),
      wt({ id: 'f' }),
      wt({ id: 'g' }),
      wt({ id: 'afterFailed', needs: ['f', 'g'] }),
    ]);
    const iso = new FakeIsolator();
    const ahead = prepareAhead(g, iso, bus, { selected: new Set(g.order.filter((id) => id !== 'old')) });
    for (const id of ['a', 'sh', 'f']) step(id, 'running');
    step('f', 'failed');
    step('g', 'running');
    await tick();
    assert.deepEqual(iso.calls, []);
    await ahead.close();
  });

  it('caps preparations in flight, most critical first; a step that starts meanwhile is dropped from the queue', async () => {
    const g = makeGraph([
      wt({ id: 'a' }),
      wt({ id: 'b', needs: ['a'] }),
      wt({ id: 'c', needs: ['a'] }),
      wt({ id: 'd', needs: ['a'] }),
      wt({ id: 'e', needs: ['a'] }),
      wt({ id: 'deep', needs: ['a'] }),
      wt({ id: 'tail', needs: ['deep'] }),
    ]);
    const iso = new FakeIsolator();
    const ahead = prepareAhead(g, iso, bus, { concurrency: 2 });
    step('a', 'running');
    await tick();
    assert.equal(iso.calls.length, 2);
    assert.equal(iso.calls[0], 'deep', 'the longest remaining path goes first');
    step('e', 'running'); // e became ready and started before a slot came free
    for (const id of [...iso.calls]) iso.done(id);
    await tick();
    await tick();
    for (const id of iso.calls.slice(2)) iso.done(id);
    await tick();
    await tick();
    assert.equal(iso.maxInFlight, 2);
    assert.equal(iso.calls.includes('e'), false);
    assert.deepEqual([...iso.calls].sort(), ['b', 'c', 'd', 'deep']);
    await ahead.close();
  });

  it('discards the tree of a step that ends without taking it, and every leftover at close', async () => {
    const g = makeGraph([wt({ id: 'a' }), wt({ id: 'b', needs: ['a'] }), wt({ id: 'c', needs: ['a'] })]);
    const iso = new FakeIsolator();
    const ahead = prepareAhead(g, iso, bus);
    step('a', 'running');
    await tick();
    iso.done('b');
    iso.done('c');
    step('b', 'skipped');
    await tick();
    assert.deepEqual(iso.discarded, ['b']);
    await ahead.close();
    assert.deepEqual(
      [...iso.discarded].sort(),
      ['b', 'b', 'c'],
      'close discards whatever no attempt took (a taken one is a no-op)',
    );
    step('a', 'succeeded');
    assert.equal(iso.calls.length, 2, 'closed: no more events are heard');
  });

  it('is inert for an isolator without the hooks', async () => {
    const g = makeGraph([wt({ id: 'a' }), wt({ id: 'b', needs: ['a'] })]);
    const seen: Listener[] = [];
    const source = {
      on: (l: Listener): Disposable => {
        seen.push(l);
        return { dispose: () => {} };
      },
    };
    const ahead = prepareAhead(
      g,
      {
        around: () => {
          throw new Error('unused');
        },
      },
      source,
    );
    assert.equal(seen.length, 0);
    await ahead.close();
  });
});

describe('touchesSetupInputs', () => {
  const cases: Array<[string[], string, boolean]> = [
    [['package-lock.json'], 'npm ci', true],
    [['packages/web/package.json'], 'npm ci', true],
    [['src/a.ts', 'README.md'], 'npm ci', false],
    [['scripts/bootstrap.sh'], './scripts/bootstrap.sh --fast', true],
    [['scripts/other.sh'], './scripts/bootstrap.sh', false],
    [['requirements-dev.txt'], 'pip install -r requirements-dev.txt', true],
    [['go.sum'], 'go mod download', true],
    [[], 'npm ci', false],
  ];
  for (const [paths, setup, want] of cases) {
    it(`${JSON.stringify(paths)} with "${setup}" → ${want}`, () =>
      assert.equal(touchesSetupInputs(paths, setup), want));
  }
});

describe('prepareAhead through runPlan, against a real git', function () {
  this.timeout(60_000);

  const worktrees = (r: TestRepo) =>
    r
      .git(['worktree', 'list', '--porcelain'])
      .split('\n')
      .filter((l) => l.startsWith('worktree '))
      .map((l) => l.slice(9));
  const braidBranches = (r: TestRepo) =>
    r.git(['for-each-ref', '--format=%(refname:short)', 'refs/heads/braid/']).trim();
  // Step `a` runs until the dependent's setup has left its marker (or gives up after 20 s), and
  // says whether it saw it: then the dependent's tree existed, set up, while `a` still ran.
  const waitFor = (file: string) =>
    `for i in $(seq 400); do [ -f ${file} ] && break; sleep 0.05; done; if [ -f ${file} ]; then echo seen; else echo missing; fi`;

  it('a dependent’s worktree is made and set up while its need runs, and still sees the need’s result', async () => {
    const r = repo({ 'README.md': 'hello\n' });
    const count = join(tempDir('count'), 'setups');
    // b's setup writes its marker aside and renames it: `> setup-marker` alone creates the file before
    // node has written the time.
    const planPath = planFile(plan`
      version: 1
      steps:
        a:
          run: ${waitFor('../b/setup-marker')} > saw.txt && printf "from a\\n" > a.txt
          isolation: worktree
          writes: [saw.txt, a.txt]
        b:
          needs: [a]
          isolation: worktree
          writes: [b.txt, b-setup.txt]
          setup: node -e "process.stdout.write(String(Date.now()))" > setup-marker.tmp && mv setup-marker.tmp setup-marker && echo x >> ${count}
          run: cat a.txt > b.txt && cp setup-marker b-setup.txt
      `);
    const { record } = await run(r, planPath);
    assert.equal(record.status, 'succeeded', JSON.stringify(record.steps));
    assert.equal(r.read('saw.txt'), 'seen\n', 'b’s worktree and its setup’s marker existed while a ran');
    assert.ok(Number(r.read('b-setup.txt')) < Date.parse(record.steps.a!.endedAt!), 'setup ran before a ended');
    assert.equal(r.read('b.txt'), 'from a\n', 'b saw what a produced');
    assert.equal(readFileSync(count, 'utf8'), 'x\n', 'setup ran once');
    assert.equal(existsSync(join(r.dir, 'setup-marker')), false, 'what setup made is not b’s change');
    assert.match(
      readFileSync(join(r.dir, '.braid', 'runs', record.id, 'logs', 'b.log'), 'utf8'),
      /setup, prepared ahead of its needs/,
    );
    assert.deepEqual(worktrees(r), [r.dir]);
    assert.equal(braidBranches(r), '');
  });

  it('a dependent that is skipped has its prepared worktree removed', async () => {
    const r = repo({ 'README.md': 'hello\n' });
    const planPath = planFile(plan`
      version: 1
      steps:
        a:
          run: ${waitFor('../b/setup-marker')} > saw.txt && exit 1
          isolation: worktree
          writes: [saw.txt]
        b:
          needs: [a]
          isolation: worktree
          writes: [b.txt]
          setup: touch setup-marker
          run: touch b.txt
      `);
    const { record } = await run(r, planPath);
    assert.equal(record.steps.a!.status, 'failed');
    assert.equal(record.steps.b!.status, 'skipped');
    const kept = join(worktreesRoot(r.dir), record.id, 'a');
    assert.equal(readFileSync(join(kept, 'saw.txt'), 'utf8'), 'seen\n', 'b had been prepared');
    assert.equal(existsSync(join(worktreesRoot(r.dir), record.id, 'b')), false);
    assert.deepEqual(worktrees(r), [r.dir, kept], 'only the failed step’s worktree is kept, for the user');
    assert.equal(braidBranches(r), `braid/${record.id}/a`);
  });

  it('a failing preparation is not a failure: the attempt prepares its worktree itself', async () => {
    const r = repo({ 'README.md': 'hello\n' });
    const dir = tempDir('flaky');
    const planPath = planFile(plan`
      version: 1
      steps:
        a:
          run: ${waitFor(join(dir, 'failed-once'))} > saw.txt
          isolation: worktree
          writes: [saw.txt]
        b:
          needs: [a]
          isolation: worktree
          writes: [b.txt]
          setup: echo x >> ${join(dir, 'setups')} && if [ ! -f ${join(dir, 'failed-once')} ]; then touch ${join(dir, 'failed-once')}; exit 3; fi
          run: cat saw.txt > b.txt
      `);
    const { record } = await run(r, planPath);
    assert.equal(record.status, 'succeeded', JSON.stringify(record.steps));
    assert.equal(record.steps.b!.attempts.length, 1, 'no attempt was spent on it');
    assert.equal(r.read('b.txt'), 'seen\n');
    assert.equal(
      readFileSync(join(dir, 'setups'), 'utf8'),
      'x\nx\n',
      'the failed preparation’s setup, then the attempt’s own',
    );
    assert.deepEqual(worktrees(r), [r.dir]);
    assert.equal(braidBranches(r), '');
  });

  it('canceling the run stops a preparation’s setup and removes its worktree', async () => {
    const r = repo({ 'README.md': 'hello\n' });
    const planPath = planFile(plan`
      version: 1
      steps:
        a:
          run: ${waitFor('../b/setup-started')} && sleep 100
          isolation: worktree
          writes: [a.txt]
        b:
          needs: [a]
          isolation: worktree
          writes: [b.txt]
          setup: touch setup-started && sleep 100
          run: touch b.txt
      `);
    const ac = new AbortController();
    const { record } = await run(r, planPath, {
      signal: ac.signal,
      onEvent: (e) => {
        if (e.type === 'output' && e.text.includes('seen')) ac.abort();
      },
    });
    assert.equal(record.status, 'canceled');
    assert.equal(record.steps.b!.status, 'canceled');
    assert.deepEqual(worktrees(r), [r.dir], 'neither the running step’s nor the prepared worktree is left');
    assert.equal(braidBranches(r), '');
  });

  it('when a need changes a lockfile, setup runs after its result as it would have', async () => {
    const r = repo({ 'README.md': 'hello\n', 'package-lock.json': '{"v":1}\n' });
    const count = join(tempDir('count'), 'setups');
    const planPath = planFile(plan`
      version: 1
      steps:
        a:
          run: ${waitFor('../b/seen-lock')} > saw.txt && printf '{"v":2}\\n' > package-lock.json
          isolation: worktree
          writes: [saw.txt, package-lock.json]
        b:
          needs: [a]
          isolation: worktree
          writes: [b.txt]
          setup: cp package-lock.json seen-lock && echo x >> ${count}
          run: cat seen-lock > b.txt
      `);
    const { record } = await run(r, planPath);
    assert.equal(record.status, 'succeeded', JSON.stringify(record.steps));
    assert.equal(r.read('saw.txt'), 'seen\n', 'b was prepared on the base');
    assert.equal(r.read('b.txt'), '{"v":2}\n', 'the setup b ran with saw a’s lockfile');
    assert.equal(readFileSync(count, 'utf8'), 'x\nx\n');
    assert.deepEqual(worktrees(r), [r.dir]);
  });
});
