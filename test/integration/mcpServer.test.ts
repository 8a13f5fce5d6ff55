// `braid mcp` driven by an MCP client on the official SDK, over stdio, against real plans, a real
// git repository and the real engine process: every tool, the run started in the background and
// watched to its end, a review step approved, invalid plans and paths outside the workspace
// refused, and --no-land refusing to land.
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { braid, buildCli } from '../helpers/cliRun';
import { braidMcp, type BraidMcp } from '../helpers/mcpClient';
import { until } from '../helpers/until';
import { throwaway } from '../helpers/throwaway';
import { plan } from '../helpers/planText';

const { repo, cleanup } = throwaway('braid-mcp-');

const REVIEWED = plan`
    version: 1
    steps:
      a:
        isolation: worktree
        review: true
        writes: [a.txt]
        run: printf "from a\\n" > a.txt
      b:
        needs: [a]
        run: cat a.txt; echo "b saw it"
    `;

const TOOLS = [
  'approve',
  'cancel',
  'diff',
  'pick',
  'reject',
  'retry',
  'run_plan',
  'run_status',
  'step_log',
  'validate_plan',
  'write_plan',
];

describe('braid mcp: an MCP server on stdio', function () {
  this.timeout(90_000);
  let mcp: BraidMcp | undefined;
  before(() => {
    assert.ok(buildCli());
  });
  afterEach(async () => {
    await mcp?.close();
    mcp = undefined;
  });

  const start = async (dir: string, extra: readonly string[] = []) => {
    mcp = await braidMcp(dir, extra);
    return mcp;
  };
  const status = (m: BraidMcp, run: string) =>
    m.call('run_status', { run }).then((r) => {
      assert.ok(!r.isError, r.text);
      return r.data;
    });

  it('lists every tool with an input and an output schema', async () => {
    const m = await start(repo({ 'README.md': 'hi\n' }).dir);
    const { tools } = await m.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS);
    for (const t of tools) {
      assert.equal(t.inputSchema.type, 'object', t.name);
      assert.equal(t.outputSchema?.type, 'object', t.name);
      assert.ok((t.description ?? '').length > 20, t.name);
    }
    assert.deepEqual(tools.find((t) => t.name === 'run_plan')!.inputSchema.required, ['file']);
  });

  it('validate_plan and write_plan: an invalid plan is refused with its problems at line and column, nothing written; a valid one is written', async () => {
    const r = repo({ 'README.md': 'hi\n' });
    const m = await start(r.dir);
    const bad = 'version: 1\nsteps:\n  a:\n    nedds: [b]\n    run: echo a\n';
    const v = await m.call('validate_plan', { text: bad });
    assert.equal(v.isError, false);
    assert.equal(v.data.valid, false);
    const p = v.data.problems.find((x: any) => x.severity === 'error');
    assert.deepEqual([p.line, p.column, p.code], [4, 5, 'unknown-key'], JSON.stringify(v.data.problems));
    assert.match(p.message, /nedds/);

    const w = await m.call('write_plan', { file: 'plans/x.braid.yaml', text: bad });
    assert.equal(w.isError, true);
    assert.match(w.text, /not valid; nothing was written:\nplans\/x\.braid\.yaml:4:5: error: .*nedds/);
    assert.equal(existsSync(join(r.dir, 'plans')), false);

    const good = 'version: 1\nsteps:\n  a:\n    run: echo a\n';
    const ok = await m.call('write_plan', { file: 'plans/x.braid.yaml', text: good });
    assert.equal(ok.isError, false, ok.text);
    assert.deepEqual([ok.data.file, ok.data.steps], ['plans/x.braid.yaml', 1]);
    assert.equal(readFileSync(join(r.dir, 'plans/x.braid.yaml'), 'utf8'), good);
    const again = await m.call('write_plan', { file: 'plans/x.braid.yaml', text: good.replace('echo a', 'echo b') });
    assert.match(again.text, /exists; pass overwrite: true/);
    assert.equal(
      (
        await m.call('write_plan', {
          file: 'plans/x.braid.yaml',
          text: good.replace('echo a', 'echo b'),
          overwrite: true,
        })
      ).isError,
      false,
    );
    assert.match(readFileSync(join(r.dir, 'plans/x.braid.yaml'), 'utf8'), /echo b/);
    // Only plan files: write_plan is no way to write the workspace's code.
    assert.match((await m.call('write_plan', { file: 'src/index.ts', text: good })).text, /writes plan files only/);
    const f = await m.call('validate_plan', { file: 'plans/x.braid.yaml' });
    assert.deepEqual([f.data.valid, f.data.file, f.data.problems], [true, 'plans/x.braid.yaml', []]);
  });

  it('refuses every path outside the workspace: climbing out, absolute, and through a symlink', async () => {
    const r = repo({ 'README.md': 'hi\n' });
    const elsewhere = mkdtempSync(join(tmpdir(), 'braid-mcp-outside-'));
    cleanup.push(() => rmSync(elsewhere, { recursive: true, force: true }));
    symlinkSync(elsewhere, join(r.dir, 'link'));
    const m = await start(r.dir);
    const plan = 'version: 1\nsteps:\n  a:\n    run: echo a\n';
    for (const file of ['../x.braid.yaml', join(elsewhere, 'x.braid.yaml'), 'link/x.braid.yaml']) {
      const w = await m.call('write_plan', { file, text: plan });
      assert.equal(w.isError, true, file);
      assert.match(w.text, /outside the workspace/, file);
      assert.match((await m.call('run_plan', { file })).text, /outside the workspace/, file);
      assert.match((await m.call('validate_plan', { file })).text, /outside the workspace/, file);
    }
    assert.equal(existsSync(join(elsewhere, 'x.braid.yaml')), false);
    assert.equal(existsSync(join(r.dir, '..', 'x.braid.yaml')), false);
  });

  it("run_plan answers with the run id at once; run_status watches it to review, diff shows the change, approve lands it, the run ends; the record is the CLI's", async () => {
    const r = repo({ 'README.md': 'hi\n', 'p.braid.yaml': REVIEWED });
    const m = await start(r.dir);
    const started = await m.call('run_plan', { file: 'p.braid.yaml' });
    assert.equal(started.isError, false, started.text);
    const run: string = started.data.run;
    assert.match(run, /^\d{8}-\d{6}-[0-9a-f]{4}$/);
    assert.deepEqual(started.data.landsWithoutReview, []);
    const inReview = await until(
      () => status(m, run),
      (s) => s.steps[0].status === 'review',
      'a in review',
    );
    assert.equal(inReview.ended, false);
    assert.deepEqual(
      inReview.steps.map((s: any) => [s.id, s.status]),
      [
        ['a', 'review'],
        ['b', 'pending'],
      ],
    );

    const d = await m.call('diff', { run });
    assert.equal(d.data.steps[0].step, 'a');
    assert.match(d.data.steps[0].diff, /\+\+\+ b\/a\.txt\n@@ -0,0 \+1 @@\n\+from a\n/);
    assert.equal(existsSync(join(r.dir, 'a.txt')), false, 'nothing lands before the approval');

    const ap = await m.call('approve', { run, steps: ['a'] });
    assert.equal(ap.isError, false, ap.text);
    assert.deepEqual(ap.data.results, [{ step: 'a', ok: true, status: 'succeeded' }]);
    const end = await until(
      () => status(m, run),
      (s) => s.ended,
      'the run to end',
    );
    assert.equal(end.status, 'succeeded');
    assert.deepEqual(end.counts, { succeeded: 2 });
    assert.equal(r.read('a.txt'), 'from a\n');
    const log = await m.call('step_log', { run, step: 'b' });
    assert.match(log.data.text, /from a\nb saw it/);
    assert.equal(log.data.truncated, false);

    // Recorded as any other run: the CLI reads the same record.
    const cli = braid(['status', run, '--json', '--workspace', r.dir], r.dir);
    assert.equal(JSON.parse(cli.stdout).status, 'succeeded');
    // Approving again: a wrong state is a refusal, nothing done.
    const again = await m.call('approve', { run, steps: ['a'] });
    assert.equal(again.isError, true);
    // One decision a change (decisionClaim.ts): the second is told who decided, and when.
    assert.match(again.text, /step a was approved by .* at .*; nothing was done/);
  });

  it('--no-land: approve and pick are refused and nothing lands; reject still works', async () => {
    const r = repo({ 'README.md': 'hi\n', 'p.braid.yaml': REVIEWED });
    const m = await start(r.dir, ['--no-land']);
    const run: string = (await m.call('run_plan', { file: 'p.braid.yaml' })).data.run;
    await until(
      () => status(m, run),
      (s) => s.steps[0].status === 'review',
      'a in review',
    );
    const ap = await m.call('approve', { run, steps: ['a'] });
    assert.equal(ap.isError, true);
    assert.match(ap.text, /started with --no-land, so a person lands changes/);
    assert.match((await m.call('pick', { run, step: 'a', alternative: 1 })).text, /--no-land/);
    assert.equal((await status(m, run)).steps[0].status, 'review', 'still waiting for a person');
    assert.equal(existsSync(join(r.dir, 'a.txt')), false);
    const rej = await m.call('reject', { run, steps: ['a'], reason: 'not this' });
    assert.equal(rej.isError, false, rej.text);
    const end = await until(
      () => status(m, run),
      (s) => s.ended,
      'the run to end',
    );
    assert.deepEqual(
      end.steps.map((s: any) => [s.id, s.status, s.reason]),
      [
        ['a', 'failed', 'rejected'],
        ['b', 'skipped', 'skipped'],
      ],
    );
  });

  it('cancel stops a running run; retry runs its steps again in the same run', async () => {
    const r = repo({
      'README.md': 'hi\n',
      'p.braid.yaml': 'version: 1\nsteps:\n  slow:\n    run: test -f go || sleep 60\n',
    });
    const m = await start(r.dir);
    const run: string = (await m.call('run_plan', { file: 'p.braid.yaml' })).data.run;
    await until(
      () => status(m, run),
      (s) => s.steps[0].status === 'running',
      'slow running',
    );
    const c = await m.call('cancel', { run });
    assert.equal(c.isError, false, c.text);
    const canceled = await until(
      () => status(m, run),
      (s) => s.ended,
      'the run to end',
    );
    assert.equal(canceled.status, 'canceled');
    assert.match((await m.call('cancel', { run })).text, /is canceled: nothing to cancel/);
    r.write('go', '');
    const again = await m.call('retry', { run });
    assert.equal(again.isError, false, again.text);
    assert.equal(again.data.run, run);
    const end = await until(
      () => status(m, run),
      (s) => s.ended && s.status !== 'canceled',
      'the retry to end',
    );
    assert.deepEqual([end.status, end.steps[0].attempts], ['succeeded', 2]);
  });

  it('pick lands the alternative named of a best-of step waiting on pick: review', async () => {
    const text = plan`
        version: 1
        steps:
          greet:
            best-of: 2
            pick: review
            writes: [g.txt]
            run: echo "alt $BRAID_ALTERNATIVE" > g.txt
        `;
    const r = repo({ 'README.md': 'hi\n', 'p.braid.yaml': text });
    const m = await start(r.dir);
    const run: string = (await m.call('run_plan', { file: 'p.braid.yaml' })).data.run;
    await until(
      () => status(m, run),
      (s) => s.steps[0].reason === 'pick',
      'the pick wait',
    );
    assert.match((await m.call('pick', { run, step: 'greet', alternative: 3 })).text, /alternatives 1 to 2, not 3/);
    const p = await m.call('pick', { run, step: 'greet', alternative: 2 });
    assert.equal(p.isError, false, p.text);
    const end = await until(
      () => status(m, run),
      (s) => s.ended,
      'the run to end',
    );
    assert.equal(end.status, 'succeeded');
    assert.equal(r.read('g.txt'), 'alt 2\n');
  });

  it('answers bounded: step_log keeps the end of a long log within 64 KiB; unknown runs and steps are refusals', async () => {
    const r = repo({ 'README.md': 'hi\n', 'p.braid.yaml': 'version: 1\nsteps:\n  loud:\n    run: seq 1 100000\n' });
    const m = await start(r.dir);
    const run: string = (await m.call('run_plan', { file: 'p.braid.yaml' })).data.run;
    await until(
      () => status(m, run),
      (s) => s.ended,
      'the run to end',
    );
    const all = await m.call('step_log', { run, step: 'loud', lines: 5000 });
    assert.equal(all.data.truncated, true);
    assert.ok(Buffer.byteLength(all.data.text) <= 64 * 1024);
    assert.ok(all.data.bytes > 500_000, String(all.data.bytes));
    assert.match(all.data.text, /\n99999\n100000$/);
    const few = await m.call('step_log', { run, step: 'loud', lines: 3 });
    assert.equal(few.data.text, '99998\n99999\n100000');
    assert.match((await m.call('step_log', { run, step: 'nope' })).text, /has no step nope/);
    assert.match((await m.call('run_status', { run: '20990101-000000-abcd' })).text, /unknown run/);
    const badId = await m.call('run_status', { run: '../../etc' });
    assert.equal(badId.isError, true);
  });
});
