// `on-conflict` through runPlan, against a real git and real processes: a worktree agent step
// whose change conflicts with what another step (or the user) landed meanwhile is resolved by its
// agent in its own worktree (a custom agent, test/fixtures/agents/resolver.mjs), checked, and
// landed; a resolution that leaves markers or fails ends `conflict`; `rerun` runs a `run` step
// again on the workspace as it is now; `stop` keeps today's end.
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { numbered, throwaway } from '../helpers/throwaway';
import { assertNoLeftovers, runInRepo as run } from '../helpers/runInRepo';
import type { TestRepo } from '../helpers/gitRepo';
import { main } from '../../src/cli/main';
import { RunStore } from '../../src/core/engine/records/runStore';
import { plan } from '../helpers/planText';

const { repo, cleanup } = throwaway('braid-onconflict-');
const RESOLVER = resolve(__dirname, '../fixtures/agents/resolver.mjs');

function conflictPlan(
  r: TestRepo,
  mode: string,
  stepA: string[],
  stepB: string[],
  wait = 'by b',
): { file: string; log: string } {
  const dir = mkdtempSync(join(tmpdir(), 'braid-onconflict-plan-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const log = join(dir, 'resolver.log');
  const file = join(dir, 'p.braid.yaml');
  writeFileSync(
    file,
    [
      'version: 1',
      'env:',
      `  RESOLVER_WS: ${JSON.stringify(r.dir)}`,
      `  RESOLVER_LOG: ${JSON.stringify(log)}`,
      'agents:',
      `  resolver:`,
      `    input: text`,
      `    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(RESOLVER)}, ${mode}, "\${{ prompt }}"]`,
      'steps:',
      '  a:',
      '    agent: resolver',
      '    prompt: put your mark on line 2',
      '    isolation: worktree',
      '    writes: [f.txt]',
      `    env: { RESOLVER_WAIT: ${wait} }`,
      ...stepA,
      '  b:',
      '    run: sed -i "s/^line 2$/line 2 by b/" f.txt',
      '    isolation: worktree',
      '    writes: [f.txt]',
      ...stepB,
    ].join('\n') + '\n',
  );
  return { file, log };
}

const resolutions = (log: string): Array<{ prompt: string; files: string }> =>
  existsSync(log)
    ? readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { prompt: string; files: string })
    : [];

describe('on-conflict: the agent resolves its own conflict', function () {
  this.timeout(60_000);

  it("resolve: what b landed is merged into a's worktree with markers, the agent resolves, the check passes, both changes land", async () => {
    const r = repo({ 'f.txt': numbered(4) });
    const { file, log } = conflictPlan(r, 'both', ['    check: "! grep -q \'^<<<<<<<\' f.txt"'], []);
    const { record, events } = await run(r, file);
    const a = record.steps.a!;
    assert.equal(a.status, 'succeeded', JSON.stringify(a));
    assert.equal(
      r.read('f.txt'),
      'line 1\nline 2 by b\nline 2 by a\nline 3\nline 4\n',
      'the workspace holds both changes, no markers',
    );
    assert.equal(a.attempts.length, 2);
    assert.equal(a.attempts[0]!.status, 'conflict');
    assert.match(a.attempts[0]!.message!, /f\.txt/);
    assert.equal(a.attempts[1]!.reason, 'conflict', 'the resolution is an attempt of its own, reason conflict');
    assert.match(a.attempts[1]!.message!, /f\.txt/);
    assert.equal(a.attempts[1]!.status, 'succeeded');
    const [told] = resolutions(log);
    assert.ok(told, 'the agent ran on the conflict');
    assert.equal(told.files, 'f.txt', 'BRAID_CONFLICT_FILES names the file');
    assert.match(told.prompt, /f\.txt \(changed by step b\)/, 'the prompt names the file and the step that changed it');
    assert.match(told.prompt, /put your mark on line 2/, 'a new session is told the task too');
    // Live: the resolution's `running` event says what it does.
    const live = events.find((e) => e.type === 'step' && e.id === 'a' && e.status === 'running' && e.attempt === 2);
    assert.ok(
      live &&
        live.type === 'step' &&
        live.reason === 'conflict' &&
        /resolving the conflict in f\.txt/.test(live.message ?? ''),
      JSON.stringify(live),
    );
    assert.equal(a.changes!.files.map((f) => f.path).join(), 'f.txt', 'its recorded change is the resolved one');
    assertNoLeftovers(r);
  });

  it('a resolution that leaves markers ends conflict with the reason, its worktree kept, the workspace as b left it', async () => {
    const r = repo({ 'f.txt': numbered(4) });
    const { file, log } = conflictPlan(r, 'leave', [], []);
    const { record } = await run(r, file);
    const a = record.steps.a!;
    assert.equal(a.status, 'conflict');
    assert.match(a.message!, /left conflict markers in f\.txt/);
    assert.equal(
      r.read('f.txt'),
      'line 1\nline 2 by b\nline 3\nline 4\n',
      'nothing of a landed, no markers in the workspace',
    );
    assert.ok(a.worktree && existsSync(a.worktree), 'its worktree is kept');
    assert.match(readFileSync(join(a.worktree, 'f.txt'), 'utf8'), /^<<<<<<< /m, 'the markers are in its worktree');
    assert.equal(resolutions(log).length, 1);
  });

  it('a resolution whose check fails ends conflict, and resolve-attempts: 2 tries once more', async () => {
    const r = repo({ 'f.txt': numbered(4) });
    // Its check passes on a's own change and fails once b's is merged in: the resolution cannot pass.
    const p2 = conflictPlan(r, 'both', ['    check: "! grep -q \'by b\' f.txt"', '    resolve-attempts: 2'], []);
    const second = await run(r, p2.file);
    const a2 = second.record.steps.a!;
    assert.equal(a2.status, 'conflict', JSON.stringify(a2));
    assert.match(a2.message!, /the resolution failed: check failed/);
    assert.equal(resolutions(p2.log).length, 2, 'resolve-attempts: 2 resolutions');
    assert.equal(a2.attempts.length, 3);
    assert.equal(r.read('f.txt'), 'line 1\nline 2 by b\nline 3\nline 4\n');
  });

  it("on-conflict: stop keeps today's end: one attempt, conflict, no agent run on it", async () => {
    const r = repo({ 'f.txt': numbered(4) });
    const { file, log } = conflictPlan(r, 'both', ['    on-conflict: stop'], []);
    const { record } = await run(r, file);
    assert.equal(record.steps.a!.status, 'conflict');
    assert.equal(record.steps.a!.attempts.length, 1);
    assert.equal(resolutions(log).length, 0);
  });

  it("names the user when the conflicting edit is theirs, not a step's", async () => {
    const r = repo({ 'f.txt': numbered(4) });
    const { file, log } = conflictPlan(r, 'both', [], ['    if: always', '    needs: [a]'], 'by the user');
    const { record } = await run(r, file, {
      onEvent: (e) => {
        if (e.type === 'step' && e.id === 'a' && e.status === 'running' && e.attempt === 1)
          r.write('f.txt', r.read('f.txt').replace('line 2\n', 'line 2 by the user\n'));
      },
    });
    assert.equal(record.steps.a!.status, 'succeeded', JSON.stringify(record.steps.a));
    const [told] = resolutions(log);
    assert.match(told!.prompt, /f\.txt \(edited in the workspace by the user, not by a step\)/);
    assert.equal(r.read('f.txt').split('\n').slice(0, 3).join('\n'), 'line 1\nline 2 by the user\nline 2 by a');
  });
});

describe('on-conflict: rerun', function () {
  this.timeout(60_000);

  it('runs a run step again on the workspace as it is now, and lands', async () => {
    const r = repo({ 'f.txt': numbered(4) });
    const dir = mkdtempSync(join(tmpdir(), 'braid-rerun-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'p.braid.yaml');
    writeFileSync(
      file,
      plan`
        version: 1
        env:
          WS: ${JSON.stringify(r.dir)}
        steps:
          a:
            run: until grep -q "by b" "$WS/f.txt"; do sleep 0.02; done; sed -i "2s/$/ and a/" f.txt
            isolation: worktree
            writes: [f.txt]
            on-conflict: rerun
          b:
            run: sed -i "s/^line 2$/line 2 by b/" f.txt
            isolation: worktree
            writes: [f.txt]
        `,
    );
    const { record } = await run(r, file);
    const a = record.steps.a!;
    assert.equal(a.status, 'succeeded', JSON.stringify(a));
    assert.equal(a.attempts.length, 2);
    assert.equal(a.attempts[0]!.status, 'conflict');
    assert.equal(a.attempts[1]!.reason, 'conflict');
    assert.equal(r.read('f.txt'), 'line 1\nline 2 by b and a\nline 3\nline 4\n');
    assertNoLeftovers(r);
  });

  it("a run step keeps today's stop by default", async () => {
    const r = repo({ 'f.txt': numbered(4) });
    const dir = mkdtempSync(join(tmpdir(), 'braid-rerun-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'p.braid.yaml');
    writeFileSync(
      file,
      plan`
        version: 1
        env:
          WS: ${JSON.stringify(r.dir)}
        steps:
          a:
            run: until grep -q "by b" "$WS/f.txt"; do sleep 0.02; done; sed -i "2s/$/ and a/" f.txt
            isolation: worktree
            writes: [f.txt]
          b:
            run: sed -i "s/^line 2$/line 2 by b/" f.txt
            isolation: worktree
            writes: [f.txt]
        `,
    );
    const { record } = await run(r, file);
    assert.equal(record.steps.a!.status, 'conflict');
    assert.equal(record.steps.a!.attempts.length, 1);
  });
});

describe('braid resolve RUN STEP', function () {
  this.timeout(90_000);

  const quiet = async (argv: string[]): Promise<{ code: number; stderr: string }> => {
    let stderr = '';
    const write = process.stderr.write.bind(process.stderr);
    const writeOut = process.stdout.write.bind(process.stdout);
    process.stderr.write = (s: string) => {
      stderr += s;
      return true;
    };
    process.stdout.write = () => true;
    try {
      return { code: await main(argv), stderr };
    } finally {
      process.stderr.write = write;
      process.stdout.write = writeOut;
    }
  };

  it('resolves a conflict step of an ended run with its agent, lands it, and records the resolution as an attempt', async () => {
    const r = repo({ 'f.txt': numbered(4) });
    const { file, log } = conflictPlan(r, 'both', ['    on-conflict: stop'], []);
    const first = await run(r, file);
    assert.equal(first.record.steps.a!.status, 'conflict');
    const { code, stderr } = await quiet(['resolve', first.record.id, 'a', '--workspace', r.dir]);
    assert.equal(code, 0, stderr);
    assert.equal(r.read('f.txt'), 'line 1\nline 2 by b\nline 2 by a\nline 3\nline 4\n');
    const rec = await new RunStore(r.dir).load(first.record.id);
    const a = rec!.steps.a!;
    assert.equal(a.status, 'succeeded');
    assert.equal(a.attempts.length, 2);
    assert.equal(a.attempts[1]!.reason, 'conflict');
    assert.match(
      resolutions(log)[0]!.prompt,
      /f\.txt \(changed by step b\)/,
      'the steps that landed before are named from the record',
    );
    assertNoLeftovers(r);
  });

  it('resolves a run step with --agent, and refuses a step that is not conflict (exit 1, nothing run)', async () => {
    const r = repo({ 'f.txt': numbered(4) });
    const { file, log } = conflictPlan(r, 'both', [], []);
    // a as a run step: replace the agent step by one that conflicts the same way.
    writeFileSync(
      file,
      readFileSync(file, 'utf8')
        .replace(
          / {4}agent: resolver\n {4}prompt: put your mark on line 2\n/,
          '    run: until grep -q "by b" "$RESOLVER_WS/f.txt"; do sleep 0.02; done; sed -i "2s/.*/line 2 by a/" f.txt\n',
        )
        .replace('    env: { RESOLVER_WAIT: by b }\n', ''),
    );
    const first = await run(r, file);
    assert.equal(first.record.steps.a!.status, 'conflict', JSON.stringify(first.record.steps.a));
    const refused = await quiet(['resolve', first.record.id, 'b', '--workspace', r.dir]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /step b is succeeded, not conflict: nothing to resolve/);
    const noAgent = await quiet(['resolve', first.record.id, 'a', '--workspace', r.dir]);
    assert.equal(noAgent.code, 1);
    assert.match(noAgent.stderr, /--agent NAME/);
    const { code, stderr } = await quiet([
      'resolve',
      first.record.id,
      'a',
      '--agent',
      'resolver',
      '--workspace',
      r.dir,
    ]);
    assert.equal(code, 0, stderr);
    assert.equal(r.read('f.txt'), 'line 1\nline 2 by b\nline 2 by a\nline 3\nline 4\n');
    assert.match(resolutions(log)[0]!.prompt, /The task was this shell command/);
  });
});
