// Resolve with Agent in the workbench: a `conflict` step of an ended run (a custom agent whose
// change lost the race to another step's) is resolved by its agent in its kept worktree through
// the command beside Resolve in Merge Editor; the Runs tree shows the resolution live, then both
// changes are in the workspace and the record holds the resolution as an attempt of its own.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { RunSummary } from '../../../src/extension/common/commandIds';
import { stepDescription } from '../../../src/extension/runs/treeText';
import { braidApi, EXTENSION_ID, runRecord, waitFor, workspaceRoot, writePlan } from './helpers';
import { requestScreenshot } from './screenshot';
import { plan } from '../../helpers/planText';

describe('Resolve with Agent', function () {
  this.timeout(120_000);

  it('resolves a conflict step with its agent, live in the tree, and lands both changes', async () => {
    const root = workspaceRoot();
    const gate = mkdtempSync(join(tmpdir(), 'braid-resolve-gate-'));
    const file = 'resolve-me.txt';
    try {
      writeFileSync(join(root, file), 'line 1\nline 2\nline 3\n');
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'add', file], { cwd: root });
      execFileSync(
        'git',
        [
          '-c',
          'user.name=t',
          '-c',
          'user.email=t@t',
          '-c',
          'commit.gpgsign=false',
          'commit',
          '-q',
          '-m',
          'resolve fixture',
        ],
        { cwd: root },
      );
      const resolver = join(
        vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath,
        'test',
        'fixtures',
        'agents',
        'resolver.mjs',
      );
      const q = JSON.stringify;
      const uri = await writePlan(
        'resolve-agent',
        plan`
          version: 1
          name: Resolve agent
          env:
            RESOLVER_WS: ${q(root)}
            RESOLVER_FILE: ${file}
            RESOLVER_GATE: ${q(join(gate, 'go'))}
          agents:
            resolver:
              input: text
              command: [${q(process.execPath)}, ${q(resolver)}, both, "\${{ prompt }}"]
              env: { ELECTRON_RUN_AS_NODE: "1" }
          steps:
            a:
              agent: resolver
              prompt: put your mark on line 2
              writes: [${file}]
              on-conflict: stop
              env: { RESOLVER_WAIT: by b }
            b:
              run: sed -i "s/^line 2$/line 2 by b/" ${file}
              isolation: worktree
              writes: [${file}]
          `,
      );
      await vscode.commands.executeCommand('braid.steps.focus');
      const first = await vscode.commands.executeCommand<RunSummary>('braid.runPlan', uri);
      assert.deepEqual(first.steps, { a: 'conflict', b: 'succeeded' });
      const api = await braidApi();
      const resolved = vscode.commands.executeCommand<RunSummary>('braid.resolveWithAgent', first.runId, 'a');
      // Live: the resolution runs (it waits at the gate) and the tree says what it does.
      const live = await waitFor('the resolution to run', () => {
        const s = api.runs.get(first.runId)?.steps.get('a');
        return s?.status === 'running' && s.reason === 'conflict' ? s : undefined;
      });
      assert.match(stepDescription(live), /resolving the conflict.* with its agent/);
      await vscode.commands.executeCommand('notifications.clearAll');
      const shot = await requestScreenshot('resolve-with-agent-running');
      if (shot) console.log(`screenshot: ${shot}`);
      writeFileSync(join(gate, 'go'), '');
      const summary = await resolved;
      assert.equal(summary.status, 'succeeded', JSON.stringify(summary));
      assert.equal(readFileSync(join(root, file), 'utf8'), 'line 1\nline 2 by b\nline 2 by a\nline 3\n');
      const a = runRecord(first.runId).steps.a!;
      assert.equal(a.status, 'succeeded');
      assert.equal(a.attempts.length, 2);
      assert.equal(a.attempts[1]!.reason, 'conflict');
      await waitFor(
        'the tree to show it landed',
        () => api.runs.get(first.runId)?.steps.get('a')?.status === 'succeeded',
      );
    } finally {
      rmSync(gate, { recursive: true, force: true });
    }
  });
});
