// Every flag a preset passes, checked against the real CLI's --help: the pinned versions of
// scripts/setup-agents.sh, which before() runs (a no-op once installed), so CI checks them too.
// Only --help runs: no login, no model call.
import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { agentInvocation } from '../../src/core/agents/invocation';
import { interactiveCommand } from '../../src/core/agents/interactive';
import { presetTable } from '../../src/core/agents/presets';
import { AGENT_PERMISSIONS } from '../../src/core/agents/permission';
import { RESUME_PROMPT, resumeAgent } from '../../src/core/agents/resume';
import { findExecutable } from '../../src/core/agents/which';
import { CLI_FLAGS, type FlagFamily } from '../../src/core/agents/cliFlags';
import { stepAgent, type StepAgentOptions } from '../../src/core/agents/stepAgent';

const ROOT = join(__dirname, '..', '..');
const CACHE = process.env.BRAID_AGENTS_CACHE ?? join(ROOT, '.vscode-test', 'agents');
const BIN = join(CACHE, 'node_modules', '.bin');
// The CLIs write config and caches on start: keep them out of the user's home (and out of /tmp,
// where codex refuses to set up its helpers and warns).
const HOME = join(CACHE, 'home');

// Flags whose value must be one of the CLI's listed choices: the value is checked too.
const CHOICE_FLAGS = new Set(['--output-format', '--permission-mode', '--sandbox', '--approval-mode']);

function help(cli: string, ...args: string[]): string {
  const r = spawnSync(join(BIN, cli), [...args, '--help'], {
    encoding: 'utf8',
    timeout: 60_000,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', HOME, XDG_CONFIG_HOME: join(HOME, '.config'), NO_COLOR: '1', CI: '1' },
  });
  const text = `${r.stdout ?? ''}\n${r.stderr ?? ''}`;
  assert.equal(
    r.status,
    0,
    `${cli} ${args.join(' ')} --help did not run on Node ${process.version} (status ${r.status}, ${r.error?.message ?? ''}):\n${text}`,
  );
  return text;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const listed = (text: string, flag: string): boolean =>
  new RegExp(`(?:^|[\\s,])${escape(flag)}(?=[\\s,=<\\[]|$)`, 'm').test(text);

/** Asserts each flag of `argv` (and each choice value) appears in `helpText`. */
function assertFlags(argv: readonly string[], helpText: string, what: string): void {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break; // what follows is the prompt (or a session id), never an option
    if (!a.startsWith('-') || a === '-') continue;
    const flag = a.includes('=') ? a.slice(0, a.indexOf('=')) : a;
    assert.ok(listed(helpText, flag), `${what}: ${flag} is not in the CLI's --help`);
    if (CHOICE_FLAGS.has(flag)) {
      const value = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[i + 1]!;
      assert.ok(
        new RegExp(`\\b${escape(value)}\\b`).test(helpText),
        `${what}: ${flag} ${value} is not among the choices in --help`,
      );
    }
  }
}

describe('agent presets against the real CLIs (--help)', function () {
  this.timeout(120_000);
  const helps: Record<string, string> = {};

  before(function () {
    this.timeout(15 * 60_000); // a first install downloads ~250 MB
    try {
      execFileSync('bash', [join(ROOT, 'scripts', 'setup-agents.sh')], {
        stdio: ['ignore', 'pipe', 'pipe'],
        encoding: 'utf8',
      });
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string; message: string };
      throw new Error(`scripts/setup-agents.sh failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`, {
        cause: err,
      });
    }
    mkdirSync(HOME, { recursive: true });
    helps.claude = help('claude');
    helps.codex = help('codex');
    helps.codexExec = help('codex', 'exec');
    helps.codexResume = help('codex', 'exec', 'resume');
    helps.codexTuiResume = help('codex', 'resume');
    helps.gemini = help('gemini');
  });

  const render = (t: string): string => t;
  for (const permission of AGENT_PERMISSIONS) {
    const table = presetTable({ permission });
    const argv = (name: string): string[] => agentInvocation(table[name]!, render, 'PROMPT').argv;

    it(`claude (${permission}): every flag is in claude --help`, () => {
      assert.equal(argv('claude')[0], 'claude');
      assertFlags(argv('claude'), helps.claude!, `claude ${permission}`);
    });

    it(`codex (${permission}): exec is a command and every flag is in codex exec --help`, () => {
      const a = argv('codex');
      assert.deepEqual(a.slice(0, 2), ['codex', 'exec']);
      assert.match(helps.codex!, /^\s+exec\b/m);
      assertFlags(a.slice(2), helps.codexExec!, `codex ${permission}`);
    });

    it(`gemini (${permission}): every flag is in gemini --help`, () => {
      assertFlags(argv('gemini'), helps.gemini!, `gemini ${permission}`);
    });

    it(`resuming (${permission}): claude --resume, codex exec resume and gemini --resume take the flags we pass`, () => {
      const gemini = agentInvocation(
        resumeAgent(table.gemini!, '5e1f6a2b-0c3d-4e5f-8a9b-1c2d3e4f5a6b')!,
        render,
        RESUME_PROMPT,
      ).argv;
      assertFlags(gemini, helps.gemini!, `gemini resume ${permission}`);
      const claude = agentInvocation(
        resumeAgent(table.claude!, '5e1f6a2b-0c3d-4e5f-8a9b-1c2d3e4f5a6b')!,
        render,
        RESUME_PROMPT,
      ).argv;
      assertFlags(claude, helps.claude!, `claude resume ${permission}`);
      assert.match(helps.claude!, /--resume \[value\]\s+Resume a conversation by session ID/);
      const codex = agentInvocation(
        resumeAgent(table.codex!, '0199a213-81c0-7800-8aa1-bbab2a035a53')!,
        render,
        RESUME_PROMPT,
      ).argv;
      assert.deepEqual(codex.slice(0, 3), ['codex', 'exec', 'resume']);
      assertFlags(codex.slice(3), helps.codexResume!, `codex resume ${permission}`);
      assert.match(helps.codexResume!, /Usage: codex exec resume \[OPTIONS\] \[SESSION_ID\] \[PROMPT\]/);
    });
  }

  for (const permission of AGENT_PERMISSIONS) {
    it(`attaching (${permission}): the interactive claude --resume, codex resume and gemini --resume take the flags we pass`, () => {
      const table = presetTable({ permission });
      const id = '0199a213-81c0-7800-8aa1-bbab2a035a53';
      const at = (name: string, session?: string): string[] =>
        interactiveCommand(table[name]!, session, 'PROMPT').argv!;
      assertFlags(at('claude', id), helps.claude!, `claude attach ${permission}`);
      assertFlags(at('gemini', id), helps.gemini!, `gemini attach ${permission}`);
      const codex = at('codex', id);
      assert.deepEqual(codex.slice(0, 3), ['codex', 'resume', '--no-daemon']);
      assertFlags(codex.slice(2), helps.codexTuiResume!, `codex attach ${permission}`);
      assert.match(helps.codexTuiResume!, /Usage: codex resume \[OPTIONS\] \[SESSION_ID\]/);
      assertFlags(at('codex').slice(1), helps.codex!, `codex fresh attach ${permission}`);
    });
  }

  it('catches a flag or a choice the CLI does not have', () => {
    assert.throws(
      () => assertFlags(['claude', '-p', 'x', '--no-such-flag'], helps.claude!, 't'),
      /--no-such-flag is not in/,
    );
    assert.throws(
      () => assertFlags(['claude', '--output-format', 'yaml'], helps.claude!, 't'),
      /--output-format yaml is not among/,
    );
    assert.throws(
      () => assertFlags(['--skip-trust'], helps.claude!, 't'),
      /--skip-trust is not in/,
      'a gemini flag is not a claude flag',
    );
  });

  // A step's own flags (cliFlags.ts: model, max-turns, permission, tools), as `--flag=value`
  // elements, for every level; claude's --max-turns is hidden from its --help (checked below).
  const HIDDEN: Readonly<Record<string, readonly string[]>> = { claude: ['--max-turns'] };
  const everyAsk = (family: FlagFamily, permission: (typeof AGENT_PERMISSIONS)[number]): StepAgentOptions => {
    const f = CLI_FLAGS[family];
    return {
      ...(f.model ? { model: 'braid-model' } : {}),
      ...(f.maxTurns ? { maxTurns: 3 } : {}),
      ...(f.permission ? { permission } : {}),
      ...(f.tools ? { tools: ['Read'] } : {}),
    };
  };
  const shown = (family: string, argv: string[]): string[] =>
    argv.filter((a) => !(HIDDEN[family] ?? []).some((h) => a === h || a.startsWith(`${h}=`)));
  for (const permission of AGENT_PERMISSIONS) {
    it(`a step's flags (${permission}): every one is in the CLI's --help, also when resuming`, () => {
      const table = presetTable();
      const argv = (name: 'claude' | 'codex' | 'gemini') =>
        agentInvocation(stepAgent(table[name]!, everyAsk(name, permission)), render, 'PROMPT').argv;
      assert.ok(argv('claude').includes('--model=braid-model') && argv('claude').includes('--allowedTools=Read'));
      assertFlags(shown('claude', argv('claude')), helps.claude!, `claude step flags ${permission}`);
      assertFlags(argv('codex').slice(2), helps.codexExec!, `codex step flags ${permission}`);
      assertFlags(argv('gemini'), helps.gemini!, `gemini step flags ${permission}`);
      const codex = agentInvocation(
        resumeAgent(stepAgent(table.codex!, everyAsk('codex', permission)), '0199a213-81c0-7800-8aa1-bbab2a035a53')!,
        render,
        RESUME_PROMPT,
      ).argv;
      assertFlags(codex.slice(3), helps.codexResume!, `codex resume step flags ${permission}`);
    });
  }

  it('claude --max-turns, hidden from --help, is an option its parser takes (an unknown one fails first)', () => {
    // Without credentials claude stops at its login check, after parsing: no model is called.
    const probe = (flag: string) => {
      const r = spawnSync(join(BIN, 'claude'), ['-p', flag, 'PROMPT'], {
        encoding: 'utf8',
        timeout: 60_000,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          PATH: process.env.PATH ?? '',
          HOME,
          XDG_CONFIG_HOME: join(HOME, '.config'),
          NO_COLOR: '1',
          CI: '1',
          ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
        },
      });
      return `${r.stdout ?? ''}${r.stderr ?? ''}`;
    };
    assert.match(probe('--no-such-braid-flag=3'), /unknown option '--no-such-braid-flag=3'/);
    for (const flag of HIDDEN.claude!)
      assert.doesNotMatch(probe(`${flag}=3`), /unknown option/, `${flag} is not a claude option`);
  });

  // aider is a Python program (pip, not npm): checked only where it is installed.
  it('aider: every flag is in aider --help (where aider is installed)', function () {
    const exe = findExecutable('aider', process.env.PATH, ROOT);
    if (!exe) {
      console.log('      (aider is not on PATH: a Python CLI, not on the npm registry; its flags were not checked)');
      this.skip();
    }
    const text = execFileSync(exe, ['--help'], { encoding: 'utf8', timeout: 60_000 });
    assertFlags(agentInvocation(presetTable().aider!, render, 'PROMPT').argv, text, 'aider');
  });
});
