// A merge-back that landed is never applied twice: its commit mark survives a kill, recovery
// finishes the merge (never rolls it back), and the run's record takes the step as succeeded,
// so `retry` does not run it again on a workspace that already has its change.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { recoverInterruptedMerges } from '../../src/core/engine/isolation/applyChanges';
import { makeRepo, type TestRepo } from '../helpers/gitRepo';
import { plan } from '../helpers/planText';

const ROOT = resolve(__dirname, '../..');
const MAIN = join(ROOT, 'out/cli.js');
const braid = (args: string[], cwd: string) =>
  spawnSync(process.execPath, [MAIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
const deadPid = () => spawnSync('true').pid;

describe('merge-back journal: landed means landed', function () {
  this.timeout(60_000);
  let repo: TestRepo;
  before(() => {
    assert.equal(spawnSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, stdio: 'inherit' }).status, 0);
  });
  afterEach(() => repo.cleanup());

  it('retry after a kill right after an appending step landed does not append twice', () => {
    repo = makeRepo({
      'log.txt': 'start\n',
      'p.braid.yaml': plan`
        version: 1
        steps:
          add:
            isolation: worktree
            writes: [log.txt]
            run: echo added >> log.txt
          after:
            needs: [add]
            run: "true"
        `,
    });
    writeFileSync(join(repo.dir, '.gitignore'), '.braid/\n');
    repo.commitAll('plan');
    const r = braid(['run', 'p.braid.yaml', '--json'], repo.dir);
    assert.equal(r.status, 0, r.stderr);
    const runId = (JSON.parse(r.stdout.split('\n')[0]!) as { run: string }).run;
    assert.equal(repo.read('log.txt'), 'start\nadded\n');
    // What a kill -9 right after the landing leaves: the mark, and a record still saying running.
    const file = join(repo.dir, '.braid', 'runs', runId, 'run.json');
    const rec = JSON.parse(readFileSync(file, 'utf8'));
    rec.status = 'running';
    rec.host.pid = deadPid();
    delete rec.endedAt;
    rec.steps.add.status = 'running';
    rec.steps.after.status = 'pending';
    writeFileSync(file, JSON.stringify(rec));
    const st = braid(['status', '--json'], repo.dir);
    const after = JSON.parse(st.stdout) as {
      status: string;
      steps: Record<string, { status: string; message?: string }>;
    };
    assert.equal(after.status, 'interrupted');
    assert.equal(after.steps.add!.status, 'succeeded', 'its change is in the workspace');
    assert.match(after.steps.add!.message ?? '', /landed/);
    const retry = braid(['retry', runId], repo.dir);
    assert.equal(retry.status, 0, retry.stderr);
    assert.equal(repo.read('log.txt'), 'start\nadded\n', 'applied once');
    assert.equal(JSON.parse(readFileSync(file, 'utf8')).steps.after.status, 'succeeded');
  });

  it('recovery finishes a transaction killed between its commit mark and its clean-up', async () => {
    repo = makeRepo({ 'a.txt': 'original\n' });
    const dead = deadPid();
    const tx = join(repo.dir, '.braid', 'tmp', `merge-${dead}-0000beef`);
    mkdirSync(join(tx, 'old'), { recursive: true });
    writeFileSync(join(repo.dir, '.braid', '.gitignore'), '*\n');
    renameSync(join(repo.dir, 'a.txt'), join(tx, 'old', '0'));
    writeFileSync(join(repo.dir, 'a.txt'), 'new content\n');
    const st = lstatSync(join(repo.dir, 'a.txt'));
    const landed = join(repo.dir, '.braid', 'runs', 'r1', 'landed', 's.json');
    mkdirSync(join(landed, '..'), { recursive: true });
    writeFileSync(landed, JSON.stringify({ run: 'r1', step: 's', attempt: 1, tx: `merge-${dead}-0000beef` }));
    writeFileSync(
      join(tx, 'journal.json'),
      JSON.stringify({
        pid: dead,
        host: hostname(),
        dirs: [],
        landed,
        ops: [{ kind: 'put', path: 'a.txt', newMark: { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs } }],
      }),
    );
    await recoverInterruptedMerges(repo.dir);
    assert.equal(repo.read('a.txt'), 'new content\n', 'the landed change stays');
    assert.equal(existsSync(tx), false);
  });
});
