// Send to Step… in the extension host (issue 34), with the real claude CLI (pinned) against the
// loopback model server of the contract suite: a plan's claude step is running (short shell
// commands, over and over), the command sends it a message, and the model sees that message in the
// step's own conversation from the same claude process (one `init` in its stream, one attempt); the
// step then does what the message asked, its check passes, and its log and record keep the
// message. What the command adds over `braid say` (test/contract/takeover.test.ts) is its path:
// the runs model's step, the trust and status checks, and the run's takeover folder.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import type { SaidRecord } from '../../../src/core/engine/records/said';
import type { RunSummary } from '../../../src/extension/common/commandIds';
import { agentHome, type AgentHome } from '../../contract/harness/agentHome';
import { scenarios } from '../../contract/modelServer/scenario';
import { startModelServer, type ModelServer, type RecordedRequest } from '../../contract/modelServer/server';
import { braidApi, EXTENSION_ID, runRecord, waitFor, workspaceRoot, writePlan } from './helpers';

const MESSAGE = 'STEER: stop sleeping and write attached.txt';
/** Whether the request's conversation carries `text` anywhere (a user turn, or claude's note of a message sent while it worked). */
const heard = (q: RecordedRequest, text: string): boolean => JSON.stringify(q.body?.messages ?? []).includes(text);

describe('Send to Step… (the real claude CLI)', function () {
  this.timeout(240_000);
  let server: ModelServer;
  let home: AgentHome;
  const project = (): string => vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath;

  before(async function () {
    this.timeout(15 * 60_000); // a first install of the pinned CLIs; a no-op once there
    execFileSync('bash', [join(project(), 'scripts', 'setup-agents.sh')], { stdio: ['ignore', 'pipe', 'pipe'] });
    server = await startModelServer({ scenario: scenarios.answer('Answered.') });
    home = await agentHome(server.url);
  });
  after(async () => {
    await server?.close();
    await home?.dispose();
  });

  it("reaches a running claude step as the user's next message in the same process, and is kept in its log and record", async () => {
    // The agent works in short commands until the message reaches the model, then writes the file.
    let from: number | undefined;
    server.serve((q) => {
      if (!heard(q, MESSAGE)) return { turns: [{ shell: 'sleep 2' }] };
      from ??= q.position;
      return {
        turns: [
          ...Array.from({ length: from }, () => ({ text: '-' })),
          ...scenarios.writeFile('attached.txt', 'steered\n', 'Steered.').turns,
        ],
      };
    });
    // The claude preset, its CLI named by path (the window's PATH does not hold the pinned CLIs),
    // with the agent home's environment: the loopback model, a private HOME.
    const bin = join(project(), '.vscode-test', 'agents', 'node_modules', '.bin');
    const env: Record<string, string> = {
      ...home.env,
      PATH: `${bin}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
      ...(process.getuid?.() === 0 ? { IS_SANDBOX: '1' } : {}),
    };
    const q = JSON.stringify;
    const uri = await writePlan(
      'send-to-step',
      [
        'version: 1',
        'name: Send to step',
        'agents:',
        '  claude:',
        '    input: text',
        `    command: [${q(join(bin, 'claude'))}, -p, --output-format, stream-json, --verbose, --permission-mode, bypassPermissions, --, "\${{ prompt }}"]`,
        '    env:',
        ...Object.entries(env).map(([k, v]) => `      ${k}: ${q(v)}`),
        'steps:',
        '  work:',
        '    agent: claude',
        '    prompt: FIRST PROMPT of the work step.',
        '    check: test -f attached.txt',
        '',
      ].join('\n'),
    );
    const api = await braidApi();
    const done = vscode.commands.executeCommand<RunSummary>('braid.runPlan', uri);
    const run = await waitFor(
      'the work step running, its claude at the model',
      () => {
        const r = api.runs.runs().find((x) => x.planName === 'Send to step' && x.status === 'running');
        const atModel = server.requests.some(
          (x) => x.conversation && x.userTexts.some((t) => t.includes('FIRST PROMPT')) && x.status === 200,
        );
        return r?.steps.get('work')?.status === 'running' && atModel ? r : undefined;
      },
      120_000,
    );

    const sent = await vscode.commands.executeCommand<boolean>('braid.sendToStep', run.id, 'work', MESSAGE);
    assert.equal(sent, true, 'the run took the message');
    const turn = await waitFor(
      'the message at the model',
      () => server.requests.find((x) => x.conversation && heard(x, MESSAGE)),
      90_000,
    );
    assert.ok(
      turn.userTexts.some((t) => t.includes('FIRST PROMPT of the work step')),
      "in the step's own conversation (its history holds the first prompt)",
    );
    const summary = await done;
    assert.equal(summary.status, 'succeeded', JSON.stringify(summary));
    assert.equal(readFileSync(join(workspaceRoot(), 'attached.txt'), 'utf8'), 'steered\n', 'what it asked for landed');

    const work = runRecord(run.id).steps.work! as ReturnType<typeof runRecord>['steps'][string] & {
      said?: SaidRecord[];
    };
    assert.equal(work.attempts.length, 1, 'one attempt: the step was not stopped and run again');
    assert.deepEqual(
      (work.said ?? []).map((m) => m.message),
      [MESSAGE],
      'the record keeps the message',
    );
    const logs = join(workspaceRoot(), '.braid', 'runs', run.id, 'logs');
    const log = readFileSync(join(logs, 'work.log'), 'utf8');
    assert.match(log, /you said: STEER: stop sleeping/);
    assert.doesNotMatch(log, /resuming session/, 'no second process resumed the session');
    const raw = readFileSync(join(logs, 'work.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{"type"'))
      .map((l) => JSON.parse(l) as { type: string; subtype?: string; isReplay?: boolean });
    assert.equal(raw.filter((e) => e.type === 'system' && e.subtype === 'init').length, 1, 'one claude process');
    assert.ok(
      raw.some((e) => e.isReplay === true),
      'claude took the message from its input (echoed as a replay)',
    );
  });
});
