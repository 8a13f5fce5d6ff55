// One alternative's change, as the VS Code diff of each alternative reads it: after a real run of
// the best-of example, every alternative's own change (its file as that alternative wrote it),
// whether or not it landed, a failed one's as it ended; and none for an alternative the step has not.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { alternativeChange } from '../../src/core/engine/review/alternativeChange';
import { gitOk } from '../../src/core/exec/git';
import { makeRepo, type TestRepo } from '../helpers/gitRepo';
import { runInRepo } from '../helpers/runInRepo';

const ROOT = join(__dirname, '..', '..');

describe("an alternative's change (review/alternativeChange.ts)", function () {
  this.timeout(60_000);
  let repo: TestRepo;
  afterEach(() => repo?.cleanup());

  it("gives each alternative of a finished best-of step its own change, the losers' included", async () => {
    repo = makeRepo({ 'best-of.braid.yaml': readFileSync(join(ROOT, 'examples/best-of.braid.yaml'), 'utf8') });
    const { record } = await runInRepo(repo, join(repo.dir, 'best-of.braid.yaml'));
    assert.equal(record.steps.greet!.winner, 2);
    const wrote = { 1: 'Hello, world, from the first alternative\n', 2: 'Hi!\n', 3: 'Greetings, everyone\n' } as const;
    for (const i of [1, 2, 3] as const) {
      const found = await alternativeChange(repo.dir, record, 'greet', i);
      assert.ok(found.ok, `alternative ${i}: ${found.ok ? '' : found.message}`);
      assert.deepEqual(
        found.change.files.map((f) => [f.path, f.status, f.added]),
        [['.braid-example/greeting.txt', 'added', 1]],
      );
      assert.equal(
        await gitOk(['show', `${found.change.commit}:.braid-example/greeting.txt`], { cwd: repo.dir }),
        wrote[i],
      );
      assert.equal(
        (await gitOk(['rev-parse', `${found.change.commit}^`], { cwd: repo.dir })).trim(),
        found.change.base,
      );
    }
  });

  it("keeps a failed alternative's work as it ended, for a look, and refuses one the step does not have", async () => {
    // pick: check lets both run to the end (with pick: first the loser may be canceled before it wrote).
    repo = makeRepo({
      'p.braid.yaml':
        'version: 1\nsteps:\n  race:\n    best-of: 2\n    pick: check\n    check: echo 1\n    run: echo "try $BRAID_ALTERNATIVE" > f.txt; test "$BRAID_ALTERNATIVE" = 1\n',
    });
    const { record } = await runInRepo(repo, join(repo.dir, 'p.braid.yaml'));
    assert.equal(record.steps.race!.winner, 1);
    const failed = await alternativeChange(repo.dir, record, 'race', 2);
    assert.ok(failed.ok, failed.ok ? '' : failed.message);
    assert.deepEqual(
      failed.change.files.map((f) => [f.path, f.status]),
      [['f.txt', 'added']],
    );
    assert.equal(await gitOk(['show', `${failed.change.commit}:f.txt`], { cwd: repo.dir }), 'try 2\n');
    assert.equal(readFileSync(join(repo.dir, 'f.txt'), 'utf8'), 'try 1\n', 'only the winner landed');
    const none = await alternativeChange(repo.dir, record, 'race', 3);
    assert.equal(none.ok, false);
    assert.match(none.ok ? '' : none.message, /has no alternative 3 of race/);
  });
});
