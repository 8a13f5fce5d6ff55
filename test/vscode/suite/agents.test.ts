// Agent steps in the window: cost in the tree and status bar, a run held at its budget until the
// user continues, and retry that continues the agent's session. The agent is the fake claude.
import { strict as assert } from 'node:assert';
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { RunSummary } from '../../../src/extension/common/commandIds';
import { braidApi, EXTENSION_ID, runRecord, waitFor, workspaceRoot, writePlan } from './helpers';

const q = (s: string): string => JSON.stringify(s);
// The engine process outlives this test: what the agent must see goes in the plan's agent env.
const fakeClaude = (extraEnv = ''): string[] => {
  const fake = join(
    vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath,
    'test',
    'fixtures',
    'agents',
    'fake-agent.mjs',
  );
  return [
    'agents:',
    '  claude:',
    `    command: [${q(process.execPath)}, ${q(fake)}, -p, "\${{ prompt }}", --output-format, stream-json, --verbose]`,
    `    env: { FAKE_AGENT_FORMAT: claude, FAKE_AGENT_COST: "0.0123", FAKE_AGENT_SESSION: sess-42${extraEnv} }`,
    '    input: text',
  ];
};
const agentStep = (id: string, needs?: string): string[] => [
  `  ${id}:`,
  ...(needs ? [`    needs: [${needs}]`] : []),
  `    prompt: do ${id}`,
  '    isolation: shared',
  `    writes: [out/${id}.md]`,
];

describe('agent steps', function () {
  this.timeout(60_000);

  it('record cost and session; the tree and the run show the cost', async () => {
    const api = await braidApi();
    const uri = await writePlan(
      'agentcost',
      ['version: 1', 'name: Agent cost', ...fakeClaude(), 'steps:', ...agentStep('a'), ...agentStep('b', 'a')].join(
        '\n',
      ),
    );
    const summary = await vscode.commands.executeCommand<RunSummary>('braid.runPlan', uri);
    assert.equal(summary.status, 'succeeded', JSON.stringify(summary));
    const rec = runRecord(summary.runId);
    assert.equal(rec.steps.a?.sessionId, 'sess-42');
    assert.ok(Math.abs((rec.steps.a?.costUsd ?? 0) - 0.0123) < 1e-9);
    const node = api.tree.getChildren().find((n) => n.runId === summary.runId)!;
    assert.match(String(api.tree.getTreeItem(node).description), /\$0\.0246/, 'the run shows what its agents spent');
    const step = api.tree.getChildren(node).map((n) => api.tree.getTreeItem(n))[0]!;
    assert.match(String(step.description), /\$0\.012/);
  });

  it('a running agent step shows its last activity in the tree, read from its stream', async () => {
    const api = await braidApi();
    const uri = await writePlan(
      'activity',
      ['version: 1', 'name: Activity', ...fakeClaude(', FAKE_AGENT_DELAY_MS: "400"'), 'steps:', ...agentStep('a')].join(
        '\n',
      ),
    );
    const done = vscode.commands.executeCommand<RunSummary>('braid.runPlan', uri);
    // The fake claude's stream: an assistant message, then a Bash tool call (one line each).
    const line = await waitFor("the agent's activity in the tree", () => {
      const run = api.runs.runs().find((r) => r.planName === 'Activity' && r.status === 'running');
      const node =
        run && api.tree.getChildren({ kind: 'run', runId: run.id }).find((n) => n.kind === 'step' && n.stepId === 'a');
      const d = node && String(api.tree.getTreeItem(node).description ?? '');
      return d && /Let me run the tests|Bash: npm test/.test(d) ? d : undefined;
    });
    assert.ok(!line.includes('{'), `readable text, not the raw stream: ${line}`);
    assert.equal((await done).status, 'succeeded');
  });

  it('a run that reaches max-cost-usd starts nothing more until Continue Past Budget', async () => {
    // a and b together reach the budget ($0.0246) as b ends; a step whose stream passes it is stopped instead (budgets.test.ts).
    const api = await braidApi();
    const uri = await writePlan(
      'budget',
      [
        'version: 1',
        'name: Budget',
        'max-cost-usd: 0.0246',
        ...fakeClaude(),
        'steps:',
        ...agentStep('a'),
        ...agentStep('b', 'a'),
        ...agentStep('c', 'b'),
      ].join('\n'),
    );
    const done = vscode.commands.executeCommand<RunSummary>('braid.runPlan', uri);
    const held = await waitFor('the run held at its budget', () =>
      api.runs.runs().find((r) => r.planName === 'Budget' && r.budget),
    );
    const c = held.steps.get('c')!;
    assert.ok(
      c.attempt === 0 && (c.status === 'pending' || c.status === 'waiting'),
      `c has not started: ${c.status}, attempt ${c.attempt}`,
    );
    const node = api.tree.getChildren().find((n) => n.runId === held.id)!;
    assert.equal(api.tree.getTreeItem(node).contextValue, 'run.active.budget', 'the tree offers Continue / Stop');
    assert.match(api.feedback.text() ?? '(none)', /Braid .*\$0\.02/, 'the status bar shows what the run has spent');
    assert.equal(await vscode.commands.executeCommand('braid.continueRun', held.id), true);
    const summary = await done;
    assert.equal(summary.status, 'succeeded');
    assert.deepEqual(summary.steps, { a: 'succeeded', b: 'succeeded', c: 'succeeded' });
  });

  it('a rate-limited step waits in the tree as "rate-limited, retrying at HH:MM", then succeeds without using a retry', async () => {
    const api = await braidApi();
    const state = join(workspaceRoot(), `rl-state-${Date.now()}`);
    const uri = await writePlan(
      'ratelimit',
      [
        'version: 1',
        'name: Rate limit',
        ...fakeClaude(`, FAKE_AGENT_RATE_LIMIT: "1", FAKE_AGENT_STATE: ${q(state)}, FAKE_AGENT_RESET: soon`),
        'steps:',
        ...agentStep('a'),
        '    retries: 0',
        '    retry-delay: 1500ms',
      ].join('\n'),
    );
    const done = vscode.commands.executeCommand<RunSummary>('braid.runPlan', uri);
    const line = await waitFor('the wait in the tree', () => {
      const run = api.runs.runs().find((r) => r.planName === 'Rate limit');
      const node =
        run && api.tree.getChildren({ kind: 'run', runId: run.id }).find((n) => n.kind === 'step' && n.stepId === 'a');
      const d = node && String(api.tree.getTreeItem(node).description ?? '');
      return d && d.includes('rate-limited') ? d : undefined;
    });
    assert.match(line, /^rate-limited, retrying at \d\d:\d\d/, line);
    const summary = await done;
    assert.deepEqual(summary.steps, { a: 'succeeded' });
  });

  it("braid.agents overrides a preset's command; a plan's own agents: win over the setting", async () => {
    const config = vscode.workspace.getConfiguration('braid');
    const say = (what: string) => [process.execPath, '-e', `console.log(${JSON.stringify(what)})`];
    await config.update('agents', { claude: say('from the setting') }, vscode.ConfigurationTarget.Workspace);
    try {
      const step = ['steps:', '  a:', '    prompt: hello', '    isolation: shared'];
      const bySetting = await vscode.commands.executeCommand<RunSummary>(
        'braid.runPlan',
        await writePlan('agent-setting', ['version: 1', 'name: Agent setting', ...step].join('\n')),
      );
      assert.deepEqual(bySetting.steps, { a: 'succeeded' });
      assert.equal(
        readFileSync(join(workspaceRoot(), '.braid', 'runs', bySetting.runId, 'outputs', 'a'), 'utf8').trim(),
        'from the setting',
      );
      const own = ['agents:', '  claude:', `    command: ${JSON.stringify(say('from the plan'))}`];
      const byPlan = await vscode.commands.executeCommand<RunSummary>(
        'braid.runPlan',
        await writePlan('agent-plan', ['version: 1', 'name: Agent plan', ...own, ...step].join('\n')),
      );
      assert.equal(
        readFileSync(join(workspaceRoot(), '.braid', 'runs', byPlan.runId, 'outputs', 'a'), 'utf8').trim(),
        'from the plan',
      );
    } finally {
      await config.update('agents', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it("braid.isolation is the default for steps that set none; a step's own isolation wins", async () => {
    const config = vscode.workspace.getConfiguration('braid');
    const cwd = [
      'agents:',
      '  where:',
      `    command: ${JSON.stringify([process.execPath, '-e', 'console.log(process.cwd())'])}`,
    ];
    const plan = (name: string, own: string[] = []) =>
      [
        'version: 1',
        `name: ${name}`,
        ...cwd,
        'steps:',
        '  a:',
        '    agent: where',
        '    prompt: where am I',
        '    writes: [out/where.txt]',
        ...own,
      ].join('\n');
    const ranIn = (summary: RunSummary) =>
      readFileSync(join(workspaceRoot(), '.braid', 'runs', summary.runId, 'outputs', 'a'), 'utf8').trim();
    // The test workspace is a git repository: agent steps default to their own worktree.
    const byDefault = await vscode.commands.executeCommand<RunSummary>(
      'braid.runPlan',
      await writePlan('iso-default', plan('Isolation default')),
    );
    assert.match(ranIn(byDefault), /[/\\][0-9a-f]{16}[/\\]worktrees[/\\]/, "the format's default: a worktree");
    await config.update('isolation', 'shared', vscode.ConfigurationTarget.Workspace);
    try {
      const shared = await vscode.commands.executeCommand<RunSummary>(
        'braid.runPlan',
        await writePlan('iso-shared', plan('Isolation setting')),
      );
      assert.equal(realpathSync(ranIn(shared)), realpathSync(workspaceRoot()), 'the setting: in the workspace itself');
      const own = await vscode.commands.executeCommand<RunSummary>(
        'braid.runPlan',
        await writePlan('iso-own', plan('Isolation own', ['    isolation: worktree'])),
      );
      assert.match(ranIn(own), /[/\\][0-9a-f]{16}[/\\]worktrees[/\\]/, "the plan's own value wins");
    } finally {
      await config.update('isolation', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it("Retry Step can continue the agent's recorded session", async () => {
    const argv = join(workspaceRoot(), 'argv.json');
    const uri = await writePlan(
      'resume',
      ['version: 1', 'name: Resume', ...fakeClaude(), 'steps:', ...agentStep('a')].join('\n'),
    );
    const first = await vscode.commands.executeCommand<RunSummary>('braid.runPlan', uri);
    // A retry reads the plan again: this time the agent records its argv.
    await writePlan(
      'resume',
      [
        'version: 1',
        'name: Resume',
        ...fakeClaude(`, FAKE_AGENT_ARGV_FILE: ${q(argv)}`),
        'steps:',
        ...agentStep('a'),
      ].join('\n'),
    );
    const again = await vscode.commands.executeCommand<RunSummary>('braid.retryStep', first.runId, 'a', {
      resume: true,
    });
    assert.equal(again.status, 'succeeded');
    const seen = JSON.parse(readFileSync(argv, 'utf8')) as { argv: string[] };
    assert.ok(seen.argv.join(' ').includes('--resume sess-42'), seen.argv.join(' '));
  });
});
