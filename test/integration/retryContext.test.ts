// Retries that learn, with real processes: the fake claude's second attempt, after its check
// failed once, continues its session told why (or, with retry-resume: false, starts over with the
// note after its prompt). The renderer's cases are in test/unit/retryContext.test.ts.
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runPlan } from '../../src/core/engine/runPlan';

const FAKE = join(__dirname, '..', 'fixtures', 'agents', 'fake-agent.mjs');
const SESSION = '7f3c9a2e-1b4d-4c8e-9f10-2a3b4c5d6e7f';
const q = (s: string) => JSON.stringify(s);
const CLAUDE = [
  'agents:',
  '  claude:',
  `    command: [${q(process.execPath)}, ${q(FAKE)}, -p, "\${{ prompt }}", --output-format, stream-json, --verbose]`,
  '    env: { FAKE_AGENT_FORMAT: claude }',
  '    input: text',
];

describe('retries that learn, through runPlan (fake claude)', function () {
  this.timeout(60_000);
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  async function runWith(stepLines: string[]) {
    const dir = mkdtempSync(join(tmpdir(), 'braid-retry-context-'));
    dirs.push(dir);
    const argvFile = join(dir, 'argv.json');
    // Fails once, printing why (in colour, as test runners do), then passes.
    writeFileSync(
      join(dir, 'check.sh'),
      'if [ -f .failed-once ]; then exit 0; fi\ntouch .failed-once\nprintf "\\033[31m1 failing\\033[0m: expected 4, got 5\\n"\nexit 1\n',
    );
    writeFileSync(
      join(dir, 'p.braid.yaml'),
      [
        'version: 1',
        ...CLAUDE,
        `env: { FAKE_AGENT_ARGV_FILE: ${q(argvFile)} }`,
        'steps:',
        '  a:',
        '    prompt: make the sum right',
        '    check: sh check.sh',
        '    retries: 1',
        '    retry-delay: 10ms',
        ...stepLines.map((l) => `    ${l}`),
      ].join('\n') + '\n',
    );
    const outcome = await runPlan({
      planFile: join(dir, 'p.braid.yaml'),
      workspace: dir,
      compile: { isGit: false },
      graceMs: 200,
    });
    assert.ok(outcome.ok, JSON.stringify(outcome));
    assert.equal(outcome.record.steps.a!.status, 'succeeded');
    assert.equal(outcome.record.steps.a!.attempts.length, 2);
    return JSON.parse(readFileSync(argvFile, 'utf8')) as { argv: string[]; prompt: string };
  }

  it('the second attempt continues the session, told the check failed and what it printed', async () => {
    const got = await runWith([]);
    assert.deepEqual(got.argv.slice(0, 3), ['--resume', SESSION, '-p']);
    assert.equal(
      got.prompt,
      [
        'The previous attempt (attempt 1) failed: check failed (exit 1): sh check.sh',
        'The end of its output:\n```\n1 failing: expected 4, got 5\n```',
        'Its changes are still in the working folder.',
        'Find the cause, take a different approach where it failed, and finish the task.',
      ].join('\n\n'),
    );
  });

  it('braid retry of a failed run tells the next attempt too, its check output read back from the log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'braid-retry-context-'));
    dirs.push(dir);
    const argvFile = join(dir, 'argv.json');
    writeFileSync(
      join(dir, 'p.braid.yaml'),
      [
        'version: 1',
        ...CLAUDE,
        `env: { FAKE_AGENT_ARGV_FILE: ${q(argvFile)} }`,
        'steps:',
        '  a:',
        '    prompt: make the sum right',
        `    check: 'echo "sum(2, 2): expected 4, got 5"; test -f fixed'`,
      ].join('\n') + '\n',
    );
    const run = (extra = {}) =>
      runPlan({
        planFile: join(dir, 'p.braid.yaml'),
        workspace: dir,
        compile: { isGit: false },
        graceMs: 200,
        ...extra,
      });
    const first = await run();
    assert.ok(first.ok && first.record.steps.a!.status === 'failed', JSON.stringify(first));
    writeFileSync(join(dir, 'fixed'), '');
    const again = await run({ retry: { runId: first.runId } });
    assert.ok(again.ok && again.record.steps.a!.status === 'succeeded', JSON.stringify(again));
    const got = JSON.parse(readFileSync(argvFile, 'utf8')) as { argv: string[]; prompt: string };
    assert.ok(!got.argv.includes('--resume'), "across runs, continuing the session is --resume's choice");
    assert.equal(
      got.prompt,
      [
        'make the sum right',
        'The previous attempt (attempt 1) failed: check failed (exit 1): echo "sum(2, 2): expected 4, got 5"; test -f fixed',
        'The end of its output:\n```\nsum(2, 2): expected 4, got 5\n```',
        'Its changes are still in the working folder.',
        'Find the cause and take a different approach where it failed.',
      ].join('\n\n'),
    );
  });

  it('retry-resume: false starts over with the note after the prompt', async () => {
    const got = await runWith(['retry-resume: false']);
    assert.ok(!got.argv.includes('--resume'));
    assert.match(
      got.prompt,
      /^make the sum right\n\nThe previous attempt \(attempt 1\) failed: check failed \(exit 1\): sh check\.sh\n\nThe end of its output:\n```\n1 failing: expected 4, got 5\n```/,
    );
  });
});
