// compilePlanFile takes `isGit` as a promise too (`braid validate` asks git while the plan is read
// and checked against the schema): the answer, when it comes, decides as a boolean would, and a
// failure to find it out fails the compile instead of being lost.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compilePlanFile } from '../../src/core/plan/compile';

describe('compilePlanFile: isGit given later', () => {
  let dir: string;
  let plan: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'braid-plan-git-'));
    plan = join(dir, 'w.braid.yaml');
    // A worktree step: valid only in a git workspace.
    writeFileSync(plan, 'version: 1\nsteps:\n  a:\n    prompt: hi\n    isolation: worktree\n');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const later = <T>(v: T) => new Promise<T>((done) => setTimeout(() => done(v), 20));

  for (const isGit of [true, false]) {
    it(`a promise of ${isGit} decides as ${isGit} does`, async () => {
      const now = await compilePlanFile(plan, { isGit });
      assert.equal(now.graph !== undefined, isGit, JSON.stringify(now.diagnostics));
      assert.deepEqual(await compilePlanFile(plan, { isGit: later(isGit) }), now);
    });
  }

  it('a promise that fails fails the compile', async () => {
    const failed = new Promise<boolean>((_, fail) => setTimeout(() => fail(new Error('no workspace')), 20));
    await assert.rejects(compilePlanFile(plan, { isGit: failed }), /no workspace/);
  });
});
