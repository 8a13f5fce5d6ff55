// What a step asks of its real agent CLI (#21 items 9–12), through `braid run` against the
// loopback model server: a retry tells the model why the attempt before failed (the check's
// output reaches the second request), continuing the session where the CLI can; a step's `model`
// is the model the CLI asks for; and each permission level lets each CLI do what the README's
// table says (a shell command refused at `edit` by claude and gemini unless `tools` allows it,
// run by codex in its sandbox; a write refused at `read-only`; everything at `full`).
import { strict as assert } from 'node:assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { presetTable } from '../../src/core/agents/presets';
import { canResume } from '../../src/core/agents/resume';
import { type AgentHome } from './harness/agentHome';
import { makeWorkspace, runPlan, stepOf, type RunResult } from './harness/braidRun';
import { scenarios, type Scenario } from './modelServer/scenario';
import type { ModelServer, RecordedRequest } from './modelServer/server';
import { withModelAndHome } from './harness/suite';
import { plan } from '../helpers/planText';

const CLIS = ['claude', 'codex', 'gemini'] as const;
const q = (s: string) => JSON.stringify(s);

// Fails once (printing why, in colour as test runners do), then passes. The marker sits in the
// workspace root, outside the step's worktree, which a retry makes afresh.
const CHECK = [
  'if [ -f "$MARKER" ]; then exit 0; fi',
  'touch "$MARKER"',
  'printf "\\033[31m1 failing\\033[0m: sum(2, 2) expected 4, got 5\\n"',
  'exit 1',
].join('\n');

describe('what a step asks of the real agent CLIs (contract)', function () {
  this.timeout(180_000);
  let server: ModelServer;
  let home: AgentHome;

  withModelAndHome({ scenario: scenarios.answer('unused') }, (s, h) => {
    server = s;
    home = h;
  });

  const explain = async (r: RunResult, step: string) => `${r.stdout}\n${r.stderr}\n${await r.log(step)}`;
  const conversation = (from: number) => server.requests.slice(from).filter((x) => x.conversation && x.status === 200);

  for (const cli of CLIS) {
    const resumes = canResume(presetTable()[cli]!);
    it(`${cli}: a retry tells the model why the check failed, ${resumes ? 'in the same session' : 'after the prompt of a new session (it cannot resume by id)'}`, async () => {
      server.serve(scenarios.answer('Fixed the sum.'));
      const ws = await makeWorkspace(home.dir, { git: true, files: { 'check.sh': CHECK } });
      const from = server.requests.length;
      const r = await runPlan(
        ws,
        plan`
          version: 1
          env: { MARKER: ${q(join(ws.dir, '.failed-once'))} }
          steps:
            fix:
              agent: ${cli}
              prompt: Make sum() right.
              check: sh check.sh
              retries: 1
              retry-delay: 100ms
          `,
        home.env,
      );
      const s = stepOf(r, 'fix');
      assert.equal(s.status, 'succeeded', await explain(r, 'fix'));
      assert.equal(s.attempts.length, 2);
      const asked = conversation(from);
      const first = asked.findIndex((x) => x.userTexts.some((t) => t.includes('Make sum() right.')));
      const second = asked.findIndex((x) => x.userTexts.some((t) => t.includes('expected 4, got 5')));
      assert.ok(
        first >= 0 && second > first,
        `the second attempt's request carries the check's output: ${JSON.stringify(asked.map((x) => x.userTexts))}`,
      );
      const told = asked[second]!.userTexts.join('\n');
      assert.match(told, /The previous attempt \(attempt 1\) failed: check failed \(exit 1\): sh check\.sh/);
      assert.ok(!told.includes('\x1b['), 'without the colour codes');
      if (!resumes) {
        assert.match(told, /Make sum\(\) right\.\n\nThe previous attempt/, 'the note follows the prompt');
      } else {
        assert.equal(
          s.attempts[1]!.sessionId,
          s.attempts[0]!.sessionId,
          "the retry continued the failed attempt's session",
        );
        assert.match(await r.log('fix'), /──── resuming session /);
        assert.ok(
          asked[second]!.userTexts.some((t) => t.includes('Make sum() right.')),
          'the resumed history still holds the task',
        );
      }
    });
  }

  it("a step's model is the model each CLI asks for (a matrix compares two)", async () => {
    server.serve(scenarios.answer('ok'));
    const ws = await makeWorkspace(home.dir, { git: true });
    const from = server.requests.length;
    const r = await runPlan(
      ws,
      plan`
        version: 1
        defaults: { isolation: shared }
        steps:
          c: { agent: claude, prompt: "[c] hi", matrix: { m: [braid-model-a, braid-model-b] }, model: "\${{ matrix.m }}" }
          x: { agent: codex, prompt: "[x] hi", model: braid-model-x }
          g: { agent: gemini, prompt: "[g] hi", model: braid-model-g }
        `,
      home.env,
    );
    for (const id of ['c-braid-model-a', 'c-braid-model-b', 'x', 'g'])
      assert.equal(stepOf(r, id).status, 'succeeded', await explain(r, id));
    const asked = conversation(from);
    const modelOf = (tag: string) =>
      new Set(asked.filter((x) => x.userTexts.some((t) => t.includes(tag))).map(requestModel));
    assert.deepEqual([...modelOf('[c] hi')].sort(), ['braid-model-a', 'braid-model-b']);
    assert.deepEqual([...modelOf('[x] hi')], ['braid-model-x']);
    assert.deepEqual([...modelOf('[g] hi')], ['braid-model-g']);
  });

  it('claude max-turns: the CLI stops itself at the limit and the step fails', async () => {
    server.serve({ turns: [{ shell: 'echo one' }, { shell: 'echo two' }, { text: 'Done.' }] });
    const ws = await makeWorkspace(home.dir, { git: true });
    const r = await runPlan(
      ws,
      plan`
        version: 1
        steps:
          short: { agent: claude, isolation: shared, max-turns: 1, tools: ["Bash(echo:*)"], prompt: "Echo twice." }
          long: { agent: claude, isolation: shared, max-turns: 5, tools: ["Bash(echo:*)"], prompt: "Echo twice." }
        `,
      home.env,
    );
    const short = stepOf(r, 'short');
    assert.equal(short.status, 'failed', await explain(r, 'short'));
    // The step's message is the agent's reason once failures carry it (#21 item 4); the log has it now.
    assert.match(await r.log('short'), /Reached maximum number of turns \(1\)/);
    assert.equal(stepOf(r, 'long').status, 'succeeded', await explain(r, 'long'));
  });

  it("permission per step, and tools: what each level lets each CLI do (the README's table)", async () => {
    // Each step's prompt names the file its command would make; the model answers with that command (or a write).
    const ran = (name: string) => `node -e "require('fs').writeFileSync('${name}', 'x')"`;
    const steps: Record<string, { agent: string; asks: string; act: 'shell' | 'write'; lands: boolean }> = {
      'claude-edit': { agent: 'claude', asks: 'permission: edit', act: 'shell', lands: false },
      'claude-tools': { agent: 'claude', asks: 'permission: edit, tools: ["Bash(node:*)"]', act: 'shell', lands: true },
      'claude-read': { agent: 'claude', asks: 'permission: read-only', act: 'write', lands: false },
      'gemini-edit': { agent: 'gemini', asks: 'permission: edit', act: 'shell', lands: false },
      'gemini-tools': {
        agent: 'gemini',
        asks: 'permission: edit, tools: ["run_shell_command(node)"]',
        act: 'shell',
        lands: true,
      },
      'gemini-read': { agent: 'gemini', asks: 'permission: read-only', act: 'write', lands: false },
      'codex-edit': { agent: 'codex', asks: 'permission: edit', act: 'shell', lands: true },
      'codex-read': { agent: 'codex', asks: 'permission: read-only', act: 'write', lands: false },
      // As root here (a container): claude's full needs IS_SANDBOX=1, which the step's level sets.
      'claude-full': { agent: 'claude', asks: 'permission: full', act: 'shell', lands: true },
      'gemini-full': { agent: 'gemini', asks: 'permission: full', act: 'shell', lands: true },
      'codex-full': { agent: 'codex', asks: 'permission: full', act: 'shell', lands: true },
    };
    server.serve((req: RecordedRequest): Scenario => {
      const id = Object.keys(steps).find((k) => req.userTexts.some((t) => t.includes(`[${k}]`)));
      if (!id) return scenarios.answer('?');
      return steps[id]!.act === 'shell'
        ? scenarios.shell(ran(`${id}.txt`), 'Done.')
        : scenarios.writeFile(`${id}.txt`, 'x', 'Done.');
    });
    const ws = await makeWorkspace(home.dir, { git: true });
    const r = await runPlan(
      ws,
      [
        'version: 1',
        'concurrency: 11',
        'steps:',
        ...Object.entries(steps).map(
          ([id, s]) =>
            `  ${id}: { agent: ${s.agent}, isolation: shared, writes: [${id}.txt], ${s.asks}, prompt: "[${id}] Make ${id}.txt." }`,
        ),
      ].join('\n') + '\n',
      home.env,
    );
    const got: Record<string, boolean> = {};
    for (const id of Object.keys(steps)) {
      assert.equal(stepOf(r, id).status, 'succeeded', await explain(r, id));
      got[id] = existsSync(join(ws.dir, `${id}.txt`));
    }
    assert.deepEqual(got, Object.fromEntries(Object.entries(steps).map(([id, s]) => [id, s.lands])));
  });
});

/** The model a request asked for: the body's `model` (Anthropic, OpenAI), else the Gemini path's. */
function requestModel(x: RecordedRequest): string {
  if (typeof x.body?.model === 'string') return x.body.model;
  return /\/models\/([^/:]+):/.exec(x.path)?.[1] ?? '?';
}
