import { strict as assert } from 'node:assert';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { agentInvocation, promptWithContext } from '../../src/core/agents/invocation';
import { agentFamily, PRESETS, presetTable } from '../../src/core/agents/presets';
import { canResume, RESUME_PROMPT, resumeAgent } from '../../src/core/agents/resume';
import { findExecutable, notInstalledMessage } from '../../src/core/agents/which';
import { runProcess } from '../../src/core/exec/process';
import type { AgentDef } from '../../src/core/agents/agentDef';

const FIX = join(__dirname, '..', 'fixtures', 'proc');
const ARGS = join(FIX, 'args.mjs');

const agent = (over: Partial<AgentDef>): AgentDef => ({
  name: 'test',
  command: [],
  env: {},
  context: true,
  format: 'text',
  ...over,
});

// A stand-in for the step's renderer: `${{ a.b }}` from a table, anything unknown is a bug here.
const vars: Record<string, string> = { 'matrix.tool': 'aider', 'env.MODE': 'fast' };
const render = (t: string): string =>
  t.replace(/\$\{\{\s*([\w.-]+)\s*\}\}/g, (_m, k: string) => {
    const v = vars[k];
    if (v === undefined) throw new Error(`render was asked for ${k}`);
    return v;
  });

const NASTY = `Fix "it" & don't $(rm -rf ~) \`id\` ; echo $HOME | cat > /tmp/x\n  * glob? \${{ matrix.tool }}`;

async function received(argv: string[], stdin?: string): Promise<{ argv: string[]; stdin: string }> {
  const r = await runProcess({
    argv,
    cwd: FIX,
    env: { PATH: process.env.PATH ?? '' },
    ...(stdin === undefined ? {} : { stdin }),
  });
  assert.equal(r.exitCode, 0, r.message);
  return JSON.parse(r.stdoutTail) as { argv: string[]; stdin: string };
}

describe('agentInvocation', () => {
  it('puts the prompt in one argv element, verbatim, whatever it holds', async () => {
    const a = agent({ command: [process.execPath, ARGS, '--message', '${{ prompt }}', '--tool=${{ matrix.tool }}'] });
    const inv = agentInvocation(a, render, NASTY);
    assert.deepEqual(inv.argv, [process.execPath, ARGS, '--message', NASTY, '--tool=aider']);
    assert.equal(inv.stdin, undefined);
    // And a real process receives exactly that: nothing was split, quoted or expanded.
    const got = await received(inv.argv);
    assert.deepEqual(got.argv, ['--message', NASTY, '--tool=aider']);
  });

  it('renders around the prompt inside a larger element, and accepts ${{prompt}} without spaces', () => {
    const a = agent({ command: ['x', '--message=${{prompt}} (for ${{ matrix.tool }})'] });
    assert.deepEqual(agentInvocation(a, render, 'a ${{ env.MODE }} b').argv, [
      'x',
      '--message=a ${{ env.MODE }} b (for aider)',
    ]);
  });

  it('stdin mode sends the prompt on stdin and drops the bare ${{ prompt }} element', async () => {
    const a = agent({
      command: [process.execPath, ARGS, '-p', '${{ prompt }}', '--mode', '${{ env.MODE }}'],
      stdin: 'prompt',
    });
    const inv = agentInvocation(a, render, NASTY);
    assert.deepEqual(inv.argv, [process.execPath, ARGS, '-p', '--mode', 'fast']);
    assert.equal(inv.stdin, NASTY);
    const got = await received(inv.argv, inv.stdin);
    assert.deepEqual(got.argv, ['-p', '--mode', 'fast']);
    assert.equal(got.stdin, NASTY);
  });

  it('renders the agent env and cwd', () => {
    const a = agent({
      command: ['x'],
      env: { TOOL: '${{ matrix.tool }}', FIXED: 'y' },
      cwd: 'work/${{ matrix.tool }}',
    });
    const inv = agentInvocation(a, render, 'p');
    assert.deepEqual(inv.env, { TOOL: 'aider', FIXED: 'y' });
    assert.equal(inv.cwd, 'work/aider');
    assert.equal(agentInvocation(agent({ command: ['x'] }), render, 'p').cwd, undefined);
  });

  it("the presets become the real CLIs' headless commands, with edit permission by default", () => {
    const argv = (name: string, table = PRESETS) => agentInvocation(table[name]!, render, 'do it').argv;
    // The prompt never where a CLI could read it as an option: after `--`, or glued to its flag.
    assert.deepEqual(argv('claude'), [
      'claude',
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--permission-mode',
      'acceptEdits',
      '--',
      'do it',
    ]);
    assert.deepEqual(argv('codex'), [
      'codex',
      'exec',
      '--json',
      '--skip-git-repo-check',
      '--sandbox',
      'workspace-write',
      '--',
      'do it',
    ]);
    assert.deepEqual(argv('gemini'), [
      'gemini',
      '--prompt=do it',
      '--output-format',
      'stream-json',
      '--approval-mode',
      'auto_edit',
      '--skip-trust',
    ]);
    assert.deepEqual(argv('aider'), ['aider', '--yes-always', '--message=do it']);
    assert.deepEqual(argv('shell'), ['sh', '-c', 'do it']);
    const readOnly = presetTable({ permission: 'read-only' });
    assert.deepEqual(argv('claude', readOnly).slice(-4), ['--permission-mode', 'default', '--', 'do it']);
    assert.deepEqual(argv('codex', readOnly), [
      'codex',
      'exec',
      '--json',
      '--skip-git-repo-check',
      '--sandbox',
      'read-only',
      '--',
      'do it',
    ]);
    const full = presetTable({ permission: 'full' });
    assert.deepEqual(argv('claude', full).slice(-4), ['--permission-mode', 'bypassPermissions', '--', 'do it']);
    assert.deepEqual(full.claude!.env, { IS_SANDBOX: '1' }, 'bypassPermissions runs as root only in a sandbox');
    assert.deepEqual(PRESETS.claude!.env, {});
    assert.deepEqual(argv('codex', full), [
      'codex',
      'exec',
      '--json',
      '--skip-git-repo-check',
      '--dangerously-bypass-approvals-and-sandbox',
      '--',
      'do it',
    ]);
    assert.deepEqual(argv('gemini', full).slice(-3), ['--approval-mode', 'yolo', '--skip-trust']);
    assert.throws(() => presetTable({ permission: 'sudo' as never }), /unknown permission "sudo"/);
  });

  it('each preset names its output format and default pool', () => {
    const shape = Object.fromEntries(Object.entries(PRESETS).map(([n, a]) => [n, [a.format, a.pool]]));
    assert.deepEqual(shape, {
      claude: ['claude-stream-json', 'anthropic'],
      codex: ['codex-json', 'openai'],
      gemini: ['gemini-json', 'google'],
      aider: ['text', undefined],
      shell: ['text', undefined],
    });
  });

  it('throws on a command that renders to no executable (validation should have caught it)', () => {
    assert.throws(
      () => agentInvocation(agent({ command: ['${{ prompt }}'], stdin: 'prompt' }), render, 'p'),
      /renders to no executable/,
    );
  });
});

describe('promptWithContext', () => {
  const withCtx = agent({ context: true });
  it('puts the context and one blank line before the prompt', () => {
    assert.equal(promptWithContext(withCtx, 'Do X.', 'Monorepo, pnpm.', false), 'Monorepo, pnpm.\n\nDo X.');
    // A YAML block scalar's trailing newline does not add a second blank line.
    assert.equal(promptWithContext(withCtx, 'Do X.', 'Monorepo, pnpm.\n', false), 'Monorepo, pnpm.\n\nDo X.');
  });
  it('leaves the prompt alone when the agent takes no context, the context is empty, or the prompt placed it', () => {
    assert.equal(promptWithContext(agent({ context: false }), 'Do X.', 'ctx', false), 'Do X.');
    assert.equal(promptWithContext(withCtx, 'Do X.', undefined, false), 'Do X.');
    assert.equal(promptWithContext(withCtx, 'Do X.', '', false), 'Do X.');
    assert.equal(promptWithContext(withCtx, 'Do X.', ' \n', false), 'Do X.');
    assert.equal(promptWithContext(withCtx, 'ctx\nDo X.', 'ctx', true), 'ctx\nDo X.');
  });
});

describe('findExecutable', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'braid-which-'));
    writeFileSync(join(dir, 'tool'), '#!/bin/sh\n');
    chmodSync(join(dir, 'tool'), 0o755);
    writeFileSync(join(dir, 'plain'), 'not executable\n');
    chmodSync(join(dir, 'plain'), 0o644);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('finds sh on PATH and not a missing name', () => {
    const sh = findExecutable('sh', process.env.PATH, '/');
    assert.ok(sh?.endsWith('/sh'), String(sh));
    assert.equal(findExecutable('braid-no-such-command-xyz', process.env.PATH, '/'), undefined);
    assert.equal(findExecutable('', process.env.PATH, '/'), undefined);
  });

  it('searches the given PATH in order, skipping files without the execute bit', () => {
    const path = ['/nonexistent', dir].join(delimiter);
    assert.equal(findExecutable('tool', path, '/'), join(dir, 'tool'));
    assert.equal(findExecutable('plain', path, '/'), undefined);
    assert.equal(findExecutable('tool', '/usr/bin', '/'), undefined);
  });

  it('checks absolute and relative paths directly, relative to cwd, never on PATH', () => {
    assert.equal(findExecutable(join(dir, 'tool'), '', '/'), join(dir, 'tool'));
    assert.equal(findExecutable('./tool', '', dir), join(dir, 'tool'));
    assert.equal(findExecutable('./tool', dir, '/'), undefined);
    assert.equal(findExecutable(dir, '', '/'), undefined, 'a directory is not an executable');
  });

  it("says how to install a missing preset, by the executable's name", () => {
    assert.equal(
      notInstalledMessage('claude'),
      'claude is not installed; install it with npm install -g @anthropic-ai/claude-code',
    );
    assert.equal(
      notInstalledMessage('/opt/ai/bin/gemini'),
      '/opt/ai/bin/gemini is not installed; install it with npm install -g @google/gemini-cli',
    );
    // A preset whose command a setting replaced is not told to install the CLI it no longer runs.
    assert.equal(notInstalledMessage('my-agent'), 'my-agent is not installed (not found on PATH)');
    assert.equal(notInstalledMessage('./bin/my-agent'), './bin/my-agent is not installed (no executable file there)');
  });
});

describe('agentFamily', () => {
  it('comes from the format, else the executable name', () => {
    assert.equal(agentFamily(PRESETS.claude!), 'claude');
    assert.equal(agentFamily(PRESETS.gemini!), 'gemini');
    assert.equal(agentFamily(PRESETS.aider!), 'aider');
    assert.equal(agentFamily(agent({ command: ['/opt/bin/codex.cmd', 'exec'] })), 'codex');
    assert.equal(agentFamily(agent({ command: ['my-agent'] })), 'other');
  });
});

describe('resumeAgent', () => {
  const ID = '5e1f6a2b-0c3d-4e5f-8a9b-1c2d3e4f5a6b';
  const argv = (a: AgentDef | undefined, prompt = RESUME_PROMPT) =>
    a ? agentInvocation(a, render, prompt).argv : undefined;

  it('claude: --resume ID before -p', () => {
    assert.deepEqual(argv(resumeAgent(PRESETS.claude!, ID)), [
      'claude',
      '--resume',
      ID,
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--permission-mode',
      'acceptEdits',
      '--',
      RESUME_PROMPT,
    ]);
    // An earlier session choice in a custom command gives way to the resumed one.
    const custom = agent({
      command: ['claude', '--session-id', 'x', '-c', '-p', '${{ prompt }}', '--resume=y'],
      format: 'claude-stream-json',
    });
    assert.deepEqual(argv(resumeAgent(custom, ID)), ['claude', '--resume', ID, '-p', RESUME_PROMPT]);
  });

  it('codex: codex exec resume [options] ID PROMPT, the sandbox carried as a config override', () => {
    assert.deepEqual(argv(resumeAgent(PRESETS.codex!, ID)), [
      'codex',
      'exec',
      'resume',
      '--json',
      '--skip-git-repo-check',
      '-c',
      'sandbox_mode="workspace-write"',
      '--',
      ID,
      RESUME_PROMPT,
    ]);
    const custom = agent({
      command: [
        'codex',
        'exec',
        '-C',
        'sub',
        '--json',
        '-m',
        'gpt-5',
        '--sandbox=read-only',
        '--color',
        'never',
        '${{ prompt }}',
      ],
      format: 'codex-json',
    });
    assert.deepEqual(argv(resumeAgent(custom, ID)), [
      'codex',
      'exec',
      'resume',
      '--json',
      '-m',
      'gpt-5',
      '-c',
      'sandbox_mode="read-only"',
      '--',
      ID,
      RESUME_PROMPT,
    ]);
    const onStdin = agent({
      command: ['codex', 'exec', '--json', '${{ prompt }}'],
      format: 'codex-json',
      stdin: 'prompt',
    });
    const inv = agentInvocation(resumeAgent(onStdin, ID)!, render, 'go on');
    assert.deepEqual(inv.argv, ['codex', 'exec', 'resume', '--json', '--', ID, '-']);
    assert.equal(inv.stdin, 'go on');
  });

  it('the fake agent, resumed, continues the session it was given', async () => {
    const fake = join(__dirname, '..', 'fixtures', 'agents', 'fake-agent.mjs');
    const a = resumeAgent(
      { ...PRESETS.claude!, command: [process.execPath, fake, ...PRESETS.claude!.command.slice(1)] },
      ID,
    )!;
    const inv = agentInvocation(a, render, RESUME_PROMPT);
    const r = await runProcess({
      argv: inv.argv,
      cwd: FIX,
      env: { PATH: process.env.PATH ?? '', FAKE_AGENT_FORMAT: 'claude' },
    });
    assert.equal(r.exitCode, 0, r.message);
    assert.ok(r.stdoutTail.includes(`"session_id":"${ID}"`));
  });

  it('gemini: --resume ID first, the prompt still glued to its flag', () => {
    assert.deepEqual(argv(resumeAgent(PRESETS.gemini!, ID)), [
      'gemini',
      '--resume',
      ID,
      `--prompt=${RESUME_PROMPT}`,
      '--output-format',
      'stream-json',
      '--approval-mode',
      'auto_edit',
      '--skip-trust',
    ]);
    const custom = agent({ command: ['gemini', '-r', 'latest', '-p', '${{ prompt }}'], format: 'gemini-json' });
    assert.deepEqual(argv(resumeAgent(custom, ID)), ['gemini', '--resume', ID, '-p', RESUME_PROMPT]);
  });

  it('aider, shell and custom agents cannot resume; odd ids are refused', () => {
    for (const name of ['aider', 'shell']) {
      assert.equal(canResume(PRESETS[name]!), false, name);
      assert.equal(resumeAgent(PRESETS[name]!, ID), undefined, name);
    }
    assert.equal(resumeAgent(agent({ command: ['my-agent', '${{ prompt }}'] }), ID), undefined);
    assert.equal(resumeAgent(PRESETS.claude!, '--dangerously-skip-permissions'), undefined);
    assert.equal(resumeAgent(PRESETS.claude!, '${{ env.HOME }}'), undefined);
    assert.equal(resumeAgent(PRESETS.claude!, ''), undefined);
    assert.equal(
      resumeAgent(agent({ command: ['codex', 'exec', 'resume', '--last'], format: 'codex-json' }), ID),
      undefined,
    );
  });
});
