// `sandbox: true` (#22 item 2, optional): with bubblewrap a step writes only its tree or its
// writes' folders and a private temp folder. Needs Linux and `bwrap` (Debian: apt install
// bubblewrap); without it these tests are skipped and say so.
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findBwrap } from '../../src/core/exec/sandbox';
import type { TestRepo } from '../helpers/gitRepo';
import { throwaway } from '../helpers/throwaway';
import { runInRepo as run } from '../helpers/runInRepo';
import { plan } from '../helpers/planText';

const { repo: makeRepo, planFile } = throwaway('braid-sandbox-plan-');
const repo = (): TestRepo => makeRepo({ 'README.md': 'hello\n' });

const probe = join(tmpdir(), `braid-sandbox-probe-${process.pid}`);
const ESCAPE = `echo b > other.txt || echo refused-other; echo t > ${probe} && cat ${probe}`;

describe('sandbox: true (bubblewrap)', function () {
  this.timeout(60_000);
  // scripts/setup-system.sh installs bubblewrap before the integration tests: in CI a missing bwrap
  // is a failure, not a skip; elsewhere (a machine without it) the tests say they were skipped.
  before(function () {
    if (findBwrap(process.env.PATH)) return;
    if (process.env.CI) throw new Error('bwrap is missing: scripts/setup-system.sh installs bubblewrap');
    this.skip();
  });
  afterEach(() => rmSync(probe, { force: true }));

  it("a shared step writes its writes' folder and a private temp folder, nothing else of the workspace", async () => {
    const r = repo();
    const planPath = planFile(plan`
      version: 1
      steps:
        s:
          isolation: shared
          sandbox: true
          writes: [out/**]
          run: mkdir -p out && echo a > out/a.txt; ${ESCAPE}
      `);
    const { record } = await run(r, planPath);
    assert.equal(record.steps.s!.status, 'succeeded', record.steps.s!.message);
    assert.equal(r.read('out/a.txt'), 'a\n');
    assert.equal(existsSync(join(r.dir, 'other.txt')), false, 'wrote outside its writes');
    assert.equal(existsSync(probe), false, "the temp folder is the step's own");
    const log = readFileSync(join(r.dir, '.braid', 'runs', record.id, 'logs', 's.log'), 'utf8');
    assert.match(log, /refused-other/);
    assert.match(log, /^t$/m, 'its private temp folder is writable');
  });

  it('the same step without sandbox writes there (the test can fail)', async () => {
    const r = repo();
    const planPath = planFile(plan`
      version: 1
      steps:
        s:
          isolation: shared
          writes: [out/**]
          run: ${ESCAPE}
      `);
    const { record } = await run(r, planPath);
    assert.equal(record.steps.s!.status, 'succeeded', record.steps.s!.message);
    assert.equal(r.read('other.txt'), 'b\n');
    assert.equal(existsSync(probe), true);
  });

  it('a worktree step cannot write the workspace by its absolute path; its own change lands', async () => {
    const r = repo();
    const planPath = planFile(plan`
      version: 1
      steps:
        w:
          isolation: worktree
          sandbox: true
          writes: [out.txt]
          run: ws=$(dirname "$(git rev-parse --path-format=absolute --git-common-dir)"); echo pwn > "$ws/escaped.txt" || echo refused; echo ok > out.txt
      `);
    const { record } = await run(r, planPath);
    assert.equal(record.steps.w!.status, 'succeeded', record.steps.w!.message);
    assert.equal(r.read('out.txt'), 'ok\n');
    assert.equal(existsSync(join(r.dir, 'escaped.txt')), false);
  });

  it('without bwrap on the PATH the step fails at once, saying what to install', async () => {
    const r = repo();
    const planPath = planFile(plan`
      version: 1
      steps:
        s:
          isolation: shared
          sandbox: true
          env:
            PATH: /nonexistent
          run: echo hi
      `);
    const { record } = await run(r, planPath);
    assert.equal(record.steps.s!.status, 'failed');
    assert.match(record.steps.s!.message ?? '', /sandbox: true needs bubblewrap/);
  });
});
