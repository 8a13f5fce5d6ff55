// A step's `model`, `max-turns`, `permission` and `tools`: the flags each CLI gets, where they go
// in its argv, what they replace, and the located errors where a CLI cannot honour a key.
import { strict as assert } from 'node:assert';
import { agentInvocation } from '../../src/core/agents/invocation';
import { presetTable, PRESETS } from '../../src/core/agents/presets';
import { resumeAgent } from '../../src/core/agents/resume';
import { stepAgent, stepAgentProblems } from '../../src/core/agents/stepAgent';
import { compilePlan } from '../../src/core/plan/compile';
import type { AgentDef } from '../../src/core/agents/agentDef';
import { plan } from '../helpers/planText';

const argv = (agent: AgentDef): string[] => agentInvocation(agent, (t) => t, 'PROMPT').argv;
const P = '${{ prompt }}';

describe("stepAgent: a step's asks as CLI flags", () => {
  it('claude: model, max-turns, permission and one --allowedTools element per tool, after the executable', () => {
    const a = stepAgent(PRESETS.claude!, {
      model: 'opus',
      maxTurns: 12,
      permission: 'read-only',
      tools: ['Read', 'Bash(npm test:*)'],
    });
    assert.deepEqual(argv(a), [
      'claude',
      '--model=opus',
      '--max-turns=12',
      '--permission-mode=default',
      '--allowedTools=Read',
      '--allowedTools=Bash(npm test:*)',
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--',
      'PROMPT',
    ]);
  });

  it('codex: after `exec`; its sandbox flag replaced, full is the bypass switch', () => {
    assert.deepEqual(argv(stepAgent(PRESETS.codex!, { model: 'gpt-5', permission: 'read-only' })), [
      'codex',
      'exec',
      '--model=gpt-5',
      '--sandbox=read-only',
      '--json',
      '--skip-git-repo-check',
      '--',
      'PROMPT',
    ]);
    assert.deepEqual(argv(stepAgent(PRESETS.codex!, { permission: 'full' })), [
      'codex',
      'exec',
      '--dangerously-bypass-approvals-and-sandbox',
      '--json',
      '--skip-git-repo-check',
      '--',
      'PROMPT',
    ]);
    const full = presetTable({ permission: 'full' }).codex!;
    assert.deepEqual(
      argv(stepAgent(full, { permission: 'edit' })),
      ['codex', 'exec', '--sandbox=workspace-write', '--json', '--skip-git-repo-check', '--', 'PROMPT'],
      "the run's full is taken away, not added to",
    );
  });

  it('gemini: before --prompt= (the prompt in the same element); --approval-mode and --yolo replaced', () => {
    assert.deepEqual(
      argv(
        stepAgent(PRESETS.gemini!, {
          model: 'gemini-2.5-pro',
          permission: 'full',
          tools: ['run_shell_command(npm test)'],
        }),
      ),
      [
        'gemini',
        '--model=gemini-2.5-pro',
        '--approval-mode=yolo',
        '--allowed-tools=run_shell_command(npm test)',
        '--prompt=PROMPT',
        '--output-format',
        'stream-json',
        '--skip-trust',
      ],
    );
    const custom: AgentDef = { ...PRESETS.gemini!, command: ['gemini', '--yolo', '-m', 'flash', '-p', P] };
    assert.deepEqual(
      argv(stepAgent(custom, { model: 'pro', permission: 'read-only' })),
      ['gemini', '--model=pro', '--approval-mode=default', '-p', 'PROMPT'],
      'a second --model would make yargs pass an array',
    );
  });

  it("replaces a command's own model and permission in every spelling, never the prompt nor what follows --", () => {
    const claude: AgentDef = {
      ...PRESETS.claude!,
      command: [
        'npx',
        'claude',
        '--model=a',
        '--permission-mode',
        'plan',
        '--dangerously-skip-permissions',
        '-p',
        '--',
        P,
      ],
    };
    assert.deepEqual(argv(stepAgent(claude, { model: 'b', permission: 'edit' })), [
      'npx',
      'claude',
      '--model=b',
      '--permission-mode=acceptEdits',
      '-p',
      '--',
      'PROMPT',
    ]);
    const prompt: AgentDef = { ...PRESETS.claude!, command: ['claude', '-p', P, '--model'] };
    assert.deepEqual(argv(stepAgent(prompt, { model: 'b' })), ['claude', '--model=b', '-p', 'PROMPT']);
    const wrapped: AgentDef = {
      ...PRESETS.claude!,
      command: ['node', 'cli.js', '-p', P, '--output-format', 'stream-json'],
    };
    assert.deepEqual(
      argv(stepAgent(wrapped, { model: 'b' })).slice(0, 4),
      ['node', 'cli.js', '--model=b', '-p'],
      "before the first option, not into node's",
    );
  });

  it("claude full sets IS_SANDBOX=1 (bypassPermissions refuses root otherwise); the agent's own env stays", () => {
    const custom: AgentDef = { ...PRESETS.claude!, env: { KEEP: '1' } };
    assert.deepEqual(stepAgent(custom, { permission: 'full' }).env, { KEEP: '1', IS_SANDBOX: '1' });
    assert.deepEqual(stepAgent(custom, { permission: 'edit' }).env, { KEEP: '1' });
    assert.deepEqual(stepAgent(PRESETS.codex!, { permission: 'full' }).env, {});
  });

  it('asks nothing: the agent itself', () => {
    assert.equal(stepAgent(PRESETS.claude!, {}), PRESETS.claude);
  });

  it("claude resumes with the step's flags; codex resume keeps --model and turns the sandbox into a config override", () => {
    const claude = resumeAgent(stepAgent(PRESETS.claude!, { model: 'opus', permission: 'read-only' }), 'abc-1')!;
    assert.deepEqual(argv(claude).slice(0, 5), [
      'claude',
      '--model=opus',
      '--permission-mode=default',
      '--resume',
      'abc-1',
    ]);
    const codex = resumeAgent(stepAgent(PRESETS.codex!, { model: 'gpt-5', permission: 'read-only' }), 'abc-1')!;
    assert.deepEqual(argv(codex), [
      'codex',
      'exec',
      'resume',
      '--model=gpt-5',
      '-c',
      'sandbox_mode="read-only"',
      '--json',
      '--skip-git-repo-check',
      '--',
      'abc-1',
      'PROMPT',
    ]);
  });

  it('refuses what a CLI cannot honour, saying why', () => {
    const keys = (agent: AgentDef, o: Parameters<typeof stepAgentProblems>[1]) =>
      stepAgentProblems(agent, o).map((p) => `${p.key}: ${p.message}`);
    assert.deepEqual(keys(PRESETS.codex!, { maxTurns: 3, tools: ['Read'] }), [
      'max-turns: agent `codex` cannot honour it: codex exec has no turn limit',
      'tools: agent `codex` cannot honour it: codex has no list of allowed tools; its sandbox (`permission`) bounds what its commands may do',
    ]);
    assert.match(keys(PRESETS.gemini!, { maxTurns: 3 })[0]!, /maxSessionTurns/);
    assert.match(keys(PRESETS.aider!, { permission: 'read-only' })[0]!, /aider has no permission levels/);
    assert.deepEqual(keys(PRESETS.aider!, { model: 'sonnet' }), []);
    assert.match(keys(PRESETS.shell!, { model: 'x' })[0]!, /`shell` \(`sh`\) is not a CLI Braid knows a flag for/);
    assert.match(keys(PRESETS.gemini!, { tools: ['a,b'] })[0]!, /split `a,b` at its comma/);
    assert.deepEqual(keys(PRESETS.claude!, { tools: ['Bash(a, b)'] }), [], 'claude keeps commas inside parentheses');
    assert.throws(() => stepAgent(PRESETS.codex!, { maxTurns: 3 }), /max-turns/);
  });
});

describe('model, max-turns, permission, tools in a plan', () => {
  const compile = (text: string) => compilePlan('/w/p.braid.yaml', text, { isGit: true });

  it("compile onto the step, defaults under the step's own; a matrix may compare models", () => {
    const r = compile(plan`
      version: 1
      defaults: { permission: read-only, max-turns: 5 }
      steps:
        a: { prompt: x, model: opus, tools: Read }
        b: { prompt: y, permission: edit, retry-context: false, retry-resume: false }
        c: { prompt: z, matrix: { m: [haiku, sonnet] }, model: "\${{ matrix.m }}" }
        d: { run: echo }
      `);
    assert.ok(r.graph, JSON.stringify(r.diagnostics));
    const s = (id: string) => r.graph!.steps.get(id)!;
    assert.deepEqual(
      [s('a').model, s('a').maxTurns, s('a').permission, s('a').tools],
      ['opus', 5, 'read-only', ['Read']],
    );
    assert.deepEqual([s('b').permission, s('b').retryContext, s('b').retryResume], ['edit', false, false]);
    assert.equal(s('a').retryContext, undefined);
    assert.deepEqual([s('c-haiku').model, s('c-sonnet').model], ['haiku', 'sonnet']);
    assert.equal(s('d').permission, undefined, 'a run step has no agent to ask');
  });

  it("a key the CLI cannot honour is an error at the key (the step's, or defaults' naming the step)", () => {
    const r = compile(plan`
      version: 1
      defaults:
        max-turns: 4
      steps:
        a: { prompt: x, agent: claude }
        b:
          prompt: y
          agent: codex
          tools: [Read, Edit]
        c: { prompt: z, agent: shell, max-turns: 2, permission: full }
      `);
    assert.equal(r.graph, undefined);
    const got = r.diagnostics.map((d) => `${d.range.start.line + 1}:${d.range.start.column + 1} ${d.message}`);
    assert.deepEqual(got, [
      '3:14 defaults.max-turns: agent `codex` cannot honour it: codex exec has no turn limit (step `b`)',
      '9:12 steps.b.tools: agent `codex` cannot honour it: codex has no list of allowed tools; its sandbox (`permission`) bounds what its commands may do',
      '10:44 steps.c.max-turns: agent `shell` (`sh`) is not a CLI Braid knows a flag for; put the flag in its `command`',
      '10:59 steps.c.permission: agent `shell` (`sh`) is not a CLI Braid knows a flag for; put the flag in its `command`',
    ]);
  });

  it('checks the values: permission levels, whole turns, model templates', () => {
    const r = compile(plan`
      version: 1
      steps:
        a: { prompt: x, permission: admin, max-turns: 0, model: "\${{ env.M }}" }
      `);
    const got = r.diagnostics.map((d) => d.message);
    assert.ok(
      got.some((m) => /steps\.a\.permission: expected one of read-only, edit, full, got "admin"/.test(m)),
      got.join('\n'),
    );
    assert.ok(
      got.some((m) => /steps\.a\.max-turns: expected a whole number ≥ 1, got 0/.test(m)),
      got.join('\n'),
    );
    const t = compile(plan`
      version: 1
      steps:
        a: { prompt: x, model: "\${{ env.M }}" }
      `);
    assert.deepEqual(
      t.diagnostics.map((d) => d.message),
      ['steps.a.model: takes only `${{ matrix.<key> }}` and `${{ plan.name }}` templates'],
    );
  });
});
