// Every worktree step's change recorded: the commit under refs/braid/runs/<run>/<step>, its files
// in run.json; against real git in throwaway repositories.
import { strict as assert } from 'node:assert';
import { changeRef, parseRawNumstat } from '../../src/core/engine/records/changeRecord';
import { cleanRun } from '../../src/core/engine/isolation/cleanRun';
import { numbered, throwaway } from '../helpers/throwaway';
import { runInRepo as run } from '../helpers/runInRepo';
import { plan } from '../helpers/planText';

const { repo, planFile } = throwaway('braid-change-plan-');

const body = numbered;

describe('change record', function () {
  this.timeout(60_000);

  it('keeps a landed step’s change as a commit on its base, and lists its files with their status and lines', async () => {
    const r = repo({
      'keep.txt': body(20),
      'edit.txt': 'a\nb\nc\n',
      'gone.txt': 'bye\n',
      'old/name.txt': body(30, 'moved'),
    });
    const planPath = planFile(plan`
      version: 1
      steps:
        s:
          isolation: worktree
          run: printf "a\\nB\\nc\\nd\\n" > edit.txt && rm gone.txt && printf "new\\n" > added.txt && mkdir -p new && git mv old/name.txt new/name.txt
      `);
    const { record } = await run(r, planPath);
    assert.equal(record.status, 'succeeded', JSON.stringify(record.steps));
    const change = record.steps.s!.changes!;
    assert.ok(change, 'the step record has its change');
    assert.equal(r.git(['rev-parse', changeRef(record.id, 's')]).trim(), change.commit);
    assert.equal(
      r.git(['rev-parse', `${change.commit}^`]).trim(),
      change.base,
      'the change commit’s parent is the step’s base',
    );
    const files = [...change.files].sort((a, b) => a.path.localeCompare(b.path));
    assert.deepEqual(files, [
      { path: 'added.txt', status: 'added', added: 1, removed: 0 },
      { path: 'edit.txt', status: 'modified', added: 2, removed: 1 },
      { path: 'gone.txt', status: 'deleted', added: 0, removed: 1 },
      { path: 'new/name.txt', status: 'renamed', from: 'old/name.txt', added: 0, removed: 0 },
    ]);
    assert.deepEqual(record.steps.s!.attempts[0]!.changes, change, 'the attempt keeps its change too');
    assert.equal(r.read('edit.txt'), 'a\nB\nc\nd\n', 'and it landed');
  });

  it('records `files: []` and makes no ref when the step changed nothing', async () => {
    const r = repo({ 'f.txt': 'f\n' });
    const planPath = planFile(plan`
      version: 1
      steps:
        s:
          isolation: worktree
          run: cat f.txt
      `);
    const { record } = await run(r, planPath);
    const change = record.steps.s!.changes!;
    assert.deepEqual(change.files, []);
    assert.equal(change.commit, change.base);
    assert.equal(r.git(['for-each-ref', 'refs/braid/']).trim(), '');
  });

  it('keeps a conflicted step’s change too, and `braid clean` drops the run’s refs', async () => {
    const r = repo({ 'f.txt': body(5) });
    const planPath = planFile(plan`
      version: 1
      steps:
        s:
          isolation: worktree
          run: printf "step\\n" > f.txt && sleep 0.3
      `);
    // The user edits the same lines while the step runs: its merge-back conflicts.
    const { record } = await run(r, planPath, {
      onEvent: (e) => {
        if (e.type === 'step' && e.status === 'running') r.write('f.txt', 'user\n');
      },
    });
    assert.equal(record.steps.s!.status, 'conflict', JSON.stringify(record.steps.s));
    const change = record.steps.s!.changes!;
    assert.deepEqual(
      change.files.map((f) => f.path),
      ['f.txt'],
    );
    assert.equal(r.git(['rev-parse', changeRef(record.id, 's')]).trim(), change.commit);
    const cleaned = await cleanRun(r.dir, record.id);
    assert.ok(cleaned.ok);
    assert.equal(r.git(['for-each-ref', `refs/braid/`]).trim(), '', 'no change ref left after clean');
  });

  it('a retry keeps the replaced attempt’s change in its attempt record and ref', async () => {
    const r = repo({ 'f.txt': 'one\n' });
    // Each attempt writes its own content ($$, its shell's pid): two attempts in one second would
    // otherwise make the very same commit.
    const planPath = planFile(plan`
      version: 1
      steps:
        s:
          isolation: worktree
          run: printf "step %s\\n" $$ > f.txt && sleep 0.3
      `);
    const first = await run(r, planPath, {
      onEvent: (e) => {
        if (e.type === 'step' && e.status === 'running') r.write('f.txt', 'user\n');
      },
    });
    assert.equal(first.record.steps.s!.status, 'conflict');
    const firstChange = first.record.steps.s!.changes!;
    r.git(['checkout', '--', 'f.txt']);
    const { record } = await run(r, planPath, { retry: { runId: first.record.id } });
    assert.equal(record.steps.s!.status, 'succeeded', JSON.stringify(record.steps.s));
    assert.equal(record.steps.s!.attempts.length, 2);
    assert.deepEqual(record.steps.s!.attempts[0]!.changes, firstChange, 'attempt 1 keeps its change');
    assert.notEqual(record.steps.s!.changes!.commit, firstChange.commit, 'the step shows the new one');
    assert.equal(
      r.git(['rev-parse', `refs/braid/attempts/${record.id}/s/${firstChange.commit}`]).trim(),
      firstChange.commit,
      'the replaced change keeps a ref',
    );
    assert.equal(r.git(['cat-file', '-t', firstChange.commit]).trim(), 'commit');
  });

  it('parses renames, binaries and odd names from git’s -z output', () => {
    const out = [
      ':100644 100644 aaaa bbbb R090',
      'a b.txt',
      'c\td.txt',
      ':000000 100644 0000 cccc A',
      'bin.png',
      '3\t1\t',
      'a b.txt',
      'c\td.txt',
      '-\t-\tbin.png',
      '',
    ].join('\0');
    assert.deepEqual(parseRawNumstat(out), [
      { path: 'c\td.txt', status: 'renamed', from: 'a b.txt', added: 3, removed: 1 },
      { path: 'bin.png', status: 'added', added: 0, removed: 0, binary: true },
    ]);
  });
});
