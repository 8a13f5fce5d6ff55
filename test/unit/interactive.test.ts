// The CLI a person gets on `braid attach` (agents/interactive.ts): each preset's headless command
// turned interactive, its permission kept, continuing the session in the form each CLI's --help
// gives (claude --resume ID, codex resume … ID, gemini --resume ID), else a fresh session with
// the prompt as one element no CLI reads as an option; and which agents a person may step into.
import { strict as assert } from 'node:assert';
import { interactiveCommand, personEnv } from '../../src/core/agents/interactive';
import { presetTable } from '../../src/core/agents/presets';
import { takesPeople } from '../../src/core/engine/steps/takeover';
import { afterTakeover } from '../../src/core/engine/steps/takeover';

const full = presetTable({ permission: 'full' });
const edit = presetTable({ permission: 'edit' });
const ID = '3232b6af-e772-40c2-a44b-063271d07113';

describe('interactiveCommand', () => {
  it('claude: the headless flags go, the permission stays, --resume ID', () => {
    const c = interactiveCommand(full.claude!, ID, 'p');
    assert.deepEqual(c.argv, ['claude', '--permission-mode', 'bypassPermissions', '--resume', ID]);
    assert.equal((c as { resumed?: string }).resumed, ID);
  });

  it('codex: `codex resume --no-daemon [OPTIONS] -- ID` with its sandbox, no exec or --json', () => {
    const c = interactiveCommand(edit.codex!, ID, 'p');
    assert.deepEqual(c.argv, ['codex', 'resume', '--no-daemon', '--sandbox', 'workspace-write', '--', ID]);
    // A fresh codex session, too, is the CLI's own process: leaving it ends its work.
    assert.deepEqual(interactiveCommand(edit.codex!, undefined, '-p').argv!.slice(-3), ['--no-daemon', '--', '-p']);
  });

  it('gemini: --resume ID, its approval mode and --skip-trust kept, the headless prompt gone', () => {
    const c = interactiveCommand(full.gemini!, ID, 'p');
    assert.equal(c.argv![0], 'gemini');
    assert.ok(
      !c.argv!.some((a) => a.startsWith('--prompt') || a === '--output-format' || a === 'stream-json'),
      c.argv!.join(' '),
    );
    assert.deepEqual(c.argv!.slice(-2), ['--resume', ID]);
    assert.ok(c.argv!.includes('--skip-trust'));
  });

  it('no session (or one that looks like a flag): says so, and a fresh session gets the prompt as one safe element', () => {
    const claude = interactiveCommand(full.claude!, undefined, '--help me');
    assert.deepEqual(claude.argv!.slice(-2), ['--', '--help me']);
    assert.match(claude.why!, /never reported/);
    const flagLike = interactiveCommand(full.claude!, '--dangerous', 'p');
    assert.equal((flagLike as { resumed?: string }).resumed, undefined);
    assert.match(flagLike.why!, /cannot be passed on/);
    const gemini = interactiveCommand(full.gemini!, undefined, '-x');
    assert.equal(gemini.argv!.at(-1), '--prompt-interactive=-x');
  });

  it('an agent Braid has no interactive form of: no argv, and why', () => {
    const c = interactiveCommand(full.aider!, ID, 'p');
    assert.equal(c.argv, undefined);
    assert.match(c.why, /cannot continue a session/);
  });
});

describe('takesPeople', () => {
  it('prose agents yes; a shell agent (its prompt is a script) never', () => {
    assert.equal(takesPeople(full.claude!), true);
    assert.equal(takesPeople(full.aider!), true);
    assert.equal(takesPeople(full.shell!), false);
    // By the rule, not by recognising a shell: no `input: text`, no person (`timeout 600 sh -c` is no shell's name).
    assert.equal(takesPeople({ context: true }), false);
    assert.equal(takesPeople({ input: 'text', context: true }), true);
  });
});

describe('afterTakeover', () => {
  it("a resumed run adds its usage to the stopped one's; a handover clears the stopped process's error", () => {
    type Usage = {
      sessionId?: string;
      inputTokens?: number;
      outputTokens?: number;
      costUsd?: number;
      isError?: boolean;
    };
    const before: Usage = { sessionId: 's', inputTokens: 10, outputTokens: 2, costUsd: 0.5, isError: true };
    assert.deepEqual(afterTakeover(before, { inputTokens: 5, outputTokens: 1, costUsd: 0.25 }), {
      sessionId: 's',
      inputTokens: 15,
      outputTokens: 3,
      costUsd: 0.75,
    });
    assert.equal(afterTakeover(before, undefined)!.isError, false);
  });
});

describe('personEnv', () => {
  it('drops what tells a CLI nobody is there, keeps the rest, and the step env wins', () => {
    const env = personEnv(
      {
        CI: 'true',
        CONTINUOUS_INTEGRATION: '1',
        GITHUB_ACTIONS: 'true',
        CI_JOB_ID: '7',
        PATH: '/bin',
        CIRCLE: 'x',
        HOME: '/h',
      },
      { HOME: '/step', CI: 'step' },
    );
    assert.deepEqual(env, { PATH: '/bin', CIRCLE: 'x', HOME: '/step', CI: 'step' });
  });
});
