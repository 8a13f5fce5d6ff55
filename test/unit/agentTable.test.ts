// The agent table a plan compiles with: the output format a replaced command ends up with (its
// stdout is parsed by it), and the permission the presets' CLIs get.
import { strict as assert } from 'node:assert';
import { PRESETS } from '../../src/core/agents/presets';
import { AGENT_PERMISSIONS, type AgentPermission } from '../../src/core/agents/permission';
import { agentTable, formatFor } from '../../src/core/plan/agentTable';
import { compilePlan } from '../../src/core/plan/compile';
import type { Graph } from '../../src/core/plan/types';
import { plan } from '../helpers/planText';

const P = '${{ prompt }}';

function compiled(text: string, opts: Parameters<typeof compilePlan>[2] = {}): Graph {
  const r = compilePlan('/w/p.braid.yaml', text, opts);
  assert.ok(r.graph, JSON.stringify(r.diagnostics));
  return r.graph;
}

describe('agent output format of a replaced command', () => {
  const cases: [string, string[], string][] = [
    // gemini: its preset's own flags, both values its parser reads, the = form and -o.
    ['gemini', ['gemini', '-p', P, '--output-format', 'stream-json', '--approval-mode', 'yolo'], 'gemini-json'],
    ['gemini', ['gemini', '-p', P, '--output-format', 'json'], 'gemini-json'],
    ['gemini', ['gemini', '-p', P, '--output-format=stream-json'], 'gemini-json'],
    ['gemini', ['gemini', '-o', 'json', '-p', P], 'gemini-json'],
    ['gemini', ['gemini', '-p', P, '--output-format', 'text'], 'text'],
    ['gemini', ['gemini', '-p', P], 'text'],
    // The last one given wins, as in the CLI's parser.
    ['gemini', ['gemini', '--output-format', 'json', '-p', P, '--output-format', 'text'], 'text'],
    ['gemini', ['gemini', '--output-format', 'text', '-p', P, '-o', 'stream-json'], 'gemini-json'],
    // claude: stream-json only; `json` is one result object (or an array), not event lines.
    ['claude', ['claude', '-p', P, '--output-format', 'stream-json', '--verbose'], 'claude-stream-json'],
    ['claude', ['npx', 'claude', '-p', P, '--output-format=stream-json', '--verbose'], 'claude-stream-json'],
    ['claude', ['claude', '-p', P, '--output-format', 'json'], 'text'],
    ['claude', ['claude', '-p', P], 'text'],
    // A prompt that happens to say stream-json is not the flag.
    ['claude', ['claude', '-p', 'print stream-json'], 'text'],
    ['codex', ['codex', 'exec', '--json', P], 'codex-json'],
    ['codex', ['codex', 'exec', P], 'text'],
    // aider and shell read plain text whatever they are given.
    ['aider', ['aider', '--json', '--message', P], 'text'],
  ];
  for (const [preset, argv, want] of cases) {
    it(`${preset}: ${argv.join(' ')} → ${want}`, () => assert.equal(formatFor(PRESETS[preset], argv), want));
  }

  it('a command outside the presets is plain text', () => {
    assert.equal(formatFor(undefined, ['claude', '-p', P, '--output-format', 'stream-json']), 'text');
  });

  it('a settings override keeps the format when the command keeps the flag (the preset’s own gemini flags)', () => {
    const t = agentTable(
      {},
      {
        overrides: {
          gemini: { command: `/opt/gemini/bin/gemini -p "${P}" --output-format stream-json --approval-mode auto_edit` },
          claude: { command: ['claude', '-p', P] },
          codex: { env: { CODEX_HOME: '/tmp/c' } },
        },
      },
    );
    assert.equal(t.agents.gemini!.format, 'gemini-json');
    assert.equal(t.agents.claude!.format, 'text');
    assert.equal(t.agents.codex!.format, 'codex-json', 'an env-only override keeps the preset command');
    assert.deepEqual(t.problems, []);
  });

  it('a plan agent named after a preset: the same rule', () => {
    const g = compiled(plan`
      version: 1
      agents:
        gemini: { command: [gemini, -p, "${P}", --output-format, stream-json] }
        claude: { command: [claude, -p, "${P}", --output-format, json] }
        mine: { command: [gemini, -p, "${P}", --output-format, stream-json] }
      steps:
        a: { agent: gemini, prompt: x }
        b: { agent: claude, prompt: x }
        c: { agent: mine, prompt: x }
      `);
    assert.equal(g.agents.gemini!.format, 'gemini-json');
    assert.equal(g.agents.claude!.format, 'text');
    assert.equal(g.agents.mine!.format, 'text', 'not a preset: nothing says how to read it');
  });
});

describe('agent permission (compile option)', () => {
  const argv = (permission?: AgentPermission) => {
    const g = compiled(
      plan`
        version: 1
        steps:
          a: { agent: claude, prompt: x }
          b: { agent: codex, prompt: x }
          c: { agent: gemini, prompt: x }
        `,
      permission ? { permission } : {},
    );
    return { claude: g.agents.claude!.command, codex: g.agents.codex!.command, gemini: g.agents.gemini!.command };
  };

  it('each permission gives each CLI its own flags', () => {
    const want: Record<AgentPermission, ReturnType<typeof argv>> = {
      'read-only': {
        claude: [
          'claude',
          '-p',
          '--output-format',
          'stream-json',
          '--verbose',
          '--permission-mode',
          'default',
          '--',
          P,
        ],
        codex: ['codex', 'exec', '--json', '--skip-git-repo-check', '--sandbox', 'read-only', '--', P],
        gemini: [
          'gemini',
          `--prompt=${P}`,
          '--output-format',
          'stream-json',
          '--approval-mode',
          'default',
          '--skip-trust',
        ],
      },
      edit: {
        claude: [
          'claude',
          '-p',
          '--output-format',
          'stream-json',
          '--verbose',
          '--permission-mode',
          'acceptEdits',
          '--',
          P,
        ],
        codex: ['codex', 'exec', '--json', '--skip-git-repo-check', '--sandbox', 'workspace-write', '--', P],
        gemini: [
          'gemini',
          `--prompt=${P}`,
          '--output-format',
          'stream-json',
          '--approval-mode',
          'auto_edit',
          '--skip-trust',
        ],
      },
      full: {
        claude: [
          'claude',
          '-p',
          '--output-format',
          'stream-json',
          '--verbose',
          '--permission-mode',
          'bypassPermissions',
          '--',
          P,
        ],
        codex: [
          'codex',
          'exec',
          '--json',
          '--skip-git-repo-check',
          '--dangerously-bypass-approvals-and-sandbox',
          '--',
          P,
        ],
        gemini: [
          'gemini',
          `--prompt=${P}`,
          '--output-format',
          'stream-json',
          '--approval-mode',
          'yolo',
          '--skip-trust',
        ],
      },
    };
    for (const p of AGENT_PERMISSIONS) assert.deepEqual(argv(p), want[p], p);
  });

  it('defaults to edit, and keeps every preset structured at every level', () => {
    assert.deepEqual(argv(), argv('edit'));
    for (const p of AGENT_PERMISSIONS) {
      const g = compiled(
        plan`
          version: 1
          steps:
            a: { prompt: x }
          `,
        { permission: p },
      );
      assert.deepEqual(
        [g.agents.claude!.format, g.agents.codex!.format, g.agents.gemini!.format],
        ['claude-stream-json', 'codex-json', 'gemini-json'],
        p,
      );
    }
  });

  it('a replaced command carries its own flags; an env-only override keeps the permission', () => {
    const g = compiled(
      plan`
        version: 1
        agents:
          claude: { command: [claude, -p, "${P}"] }
        steps:
          a: { prompt: x }
        `,
      {
        permission: 'full',
        agentOverrides: { codex: { env: { X: '1' } } },
      },
    );
    assert.deepEqual(g.agents.claude!.command, ['claude', '-p', P]);
    assert.ok(g.agents.codex!.command.includes('--dangerously-bypass-approvals-and-sandbox'));
  });

  it('an unknown permission is a bug of the caller: it throws', () => {
    assert.throws(
      () =>
        compiled(
          plan`
            version: 1
            steps:
              a: { prompt: x }
            `,
          { permission: 'sudo' as never },
        ),
      /unknown permission "sudo"/,
    );
  });
});
