// A real run of shell plans through the commands, in the engine process beside the window:
// the summary the command resolves with, the run record on disk, the terminal tasks, the tree.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { RunSummary } from '../../../src/extension/common/commandIds';
import { readSettings } from '../../../src/extension/common/config';
import { notifies } from '../../../src/extension/runs/runFeedback';
import { requestScreenshot } from './screenshot';
import { braidApi, runRecord, statusesOf, waitFor, workspaceRoot, writePlan } from './helpers';
import { plan } from '../../helpers/planText';

describe('running plans', function () {
  this.timeout(90_000);

  it('braid.runPlan runs a plan; the result, the record and the tree agree', async () => {
    const api = await braidApi();
    const uri = await writePlan(
      'fanout',
      plan`
        version: 1
        name: Fan-out
        concurrency: 2
        steps:
          a:
            run: echo alpha
          b:
            run: echo beta
          join:
            needs: [a, b]
            run: echo "joined \${{ steps.a.output }}"
        `,
    );
    const summary = await vscode.commands.executeCommand<RunSummary>('braid.runPlan', uri);
    assert.equal(summary.status, 'succeeded');
    assert.deepEqual(summary.steps, { a: 'succeeded', b: 'succeeded', join: 'succeeded' });
    const record = runRecord(summary.runId);
    assert.equal(record.status, 'succeeded');
    assert.deepEqual(statusesOf(record), summary.steps);
    // The need's output reached the dependent through its template.
    assert.match(
      readFileSync(join(workspaceRoot(), '.braid', 'runs', summary.runId, 'outputs', 'join'), 'utf8'),
      /joined alpha/,
    );

    const roots = api.tree.getChildren();
    const runNode = roots.find((n) => n.runId === summary.runId);
    assert.ok(runNode, 'the run is in the tree');
    const item = api.tree.getTreeItem(runNode);
    assert.equal(item.label, 'Fan-out');
    assert.equal(item.contextValue, 'run.succeeded');
    const steps = api.tree.getChildren(runNode).map((n) => api.tree.getTreeItem(n));
    assert.deepEqual(
      steps.map((s) => s.label),
      ['a', 'b', 'join'],
    );
    assert.ok(
      steps.every((s) => s.contextValue === 'step.succeeded'),
      steps.map((s) => s.contextValue).join(),
    );
  });

  it('each running step is a braid task with its own terminal, named after the step', async () => {
    const api = await braidApi();
    const uri = await writePlan(
      'slow',
      plan`
        version: 1
        name: Slow
        steps:
          first:
            name: First step
            run: echo started; sleep 4
          second:
            run: sleep 4
        `,
    );
    const done = vscode.commands.executeCommand<RunSummary>('braid.runPlan', uri);
    const tasks = await waitFor('two braid tasks', () => {
      const t = vscode.tasks.taskExecutions.filter(
        (e) => e.task.definition.type === 'braid' && String(e.task.definition.plan).endsWith('slow.braid.yaml'),
      );
      return t.length >= 2 ? t : undefined;
    });
    assert.match(
      api.feedback.text() ?? '(no status bar text)',
      /Braid \d\/2 ▶\d/,
      `active: ${api.runs
        .runs()
        .filter((r) => r.status === 'running')
        .map(
          (r) =>
            `${r.planName} ${r.id} in ${r.workspace} (on disk: ${(() => {
              try {
                return runRecord(r.id).status;
              } catch (e) {
                return (e as Error).message;
              }
            })()}) ${[...r.steps.values()].map((x) => x.status).join(',')}`,
        )
        .join('; ')}`,
    );
    const defs = tasks
      .map((t) => ({ plan: t.task.definition.plan as string, step: t.task.definition.step as string }))
      .sort((x, y) => x.step.localeCompare(y.step));
    assert.deepEqual(defs, [
      { plan: join('plans', 'slow.braid.yaml'), step: 'first' },
      { plan: join('plans', 'slow.braid.yaml'), step: 'second' },
    ]);
    assert.ok(tasks.some((t) => t.task.name === 'First step'));
    // Each names its run: a definition equal to the provider's launcher (`{ plan, step }` alone)
    // would share its task id, and the workbench could start the launcher, so a second run.
    const slow = api.runs.runs().find((r) => r.planName === 'Slow' && r.status === 'running');
    assert.ok(
      slow && tasks.every((t) => t.task.definition.run === slow.id),
      JSON.stringify(tasks.map((t) => t.task.definition)),
    );
    await waitFor('a terminal named after the step', () =>
      vscode.window.terminals.some((t) => t.name.includes('First step')),
    );
    await requestScreenshot('run-in-progress');
    const summary = await done;
    assert.equal(summary.status, 'succeeded');
    const mine = () =>
      vscode.tasks.taskExecutions.filter(
        (e) => e.task.definition.type === 'braid' && String(e.task.definition.plan).endsWith('slow.braid.yaml'),
      );
    await waitFor('the tasks to end', () => mine().length === 0).catch((err: Error) => {
      throw new Error(
        `${err.message}; still running: ${vscode.tasks.taskExecutions.map((e) => `${e.task.definition.plan}:${e.task.definition.step}`).join(', ')}`,
      );
    });
    assert.equal(api.feedback.text(), undefined, 'no status bar item once no run is active');
  });

  it("a dependent's terminal opens while its need runs, becomes its terminal, and none is left after", async () => {
    const api = await braidApi();
    // a runs until the test has seen b's terminal (a fixed sleep ran out on a loaded machine).
    const gateDir = mkdtempSync(join(tmpdir(), 'braid-ahead-'));
    const gate = join(gateDir, 'go');
    const uri = await writePlan(
      'ahead',
      plan`
        version: 1
        name: Ahead
        env:
          GATE: ${JSON.stringify(gate)}
        steps:
          a:
            name: Ahead a
            run: until [ -e "$GATE" ]; do sleep 0.05; done
          b:
            name: Ahead b
            needs: [a]
            run: echo b ran
        `,
    );
    const done = vscode.commands.executeCommand<RunSummary>('braid.runPlan', uri);
    const ahead = () => vscode.window.terminals.filter((t) => t.name.startsWith('Ahead '));
    // Before b starts: its task terminal is there already, named as its step's terminal is.
    const run = await waitFor("b's terminal open while a runs and b waits", () => {
      const r = api.runs.runs().find((x) => x.planName === 'Ahead' && x.status === 'running');
      const statuses = r && [r.steps.get('a')?.status, r.steps.get('b')?.status].join();
      return statuses === 'running,pending' && ahead().some((t) => t.name === 'Ahead b') ? r : undefined;
    });
    const bTask = vscode.tasks.taskExecutions.find(
      (e) =>
        e.task.definition.type === 'braid' &&
        String(e.task.definition.plan).endsWith('ahead.braid.yaml') &&
        e.task.definition.step === 'b',
    );
    assert.equal(bTask?.task.definition.run, run.id, "b's terminal is a task of this run");
    writeFileSync(gate, '');
    const summary = await done;
    rmSync(gateDir, { recursive: true, force: true });
    assert.deepEqual(summary.steps, { a: 'succeeded', b: 'succeeded' });
    // No more than the running steps + the failed ones + 1: here none runs or failed, and the
    // terminal opened ahead was b's own, so none is left.
    await waitFor('no terminal of the run left', () => ahead().length === 0).catch((err: Error) => {
      throw new Error(
        `${err.message}; terminals: ${ahead()
          .map((t) => t.name)
          .join(', ')}`,
      );
    });
  });

  it('a step waiting for a lock says in the tree who holds it and which paths', async () => {
    const api = await braidApi();
    const uri = await writePlan(
      'locked',
      plan`
        version: 1
        name: Locked
        concurrency: 2
        steps:
          holder:
            run: sleep 2
            writes: ["shared/**"]
          waiter:
            run: "true"
            writes: ["shared/a.txt"]
        `,
    );
    const done = vscode.commands.executeCommand<RunSummary>('braid.runPlan', uri);
    const line = await waitFor('the lock wait in the tree', () => {
      const run = api.runs.runs().find((r) => r.planName === 'Locked' && r.status === 'running');
      const node =
        run &&
        api.tree.getChildren({ kind: 'run', runId: run.id }).find((n) => n.kind === 'step' && n.stepId === 'waiter');
      const d = node && String(api.tree.getTreeItem(node).description ?? '');
      return d && d.startsWith('waiting for') ? d : undefined;
    });
    assert.match(line, /^waiting for holder: .*shared\/\*\*/, line);
    assert.deepEqual((await done).steps, { holder: 'succeeded', waiter: 'succeeded' });
  });

  it('a failed step fails the run and skips its dependents; Retry Failed Steps re-runs it in the same run', async () => {
    const flag = join(workspaceRoot(), 'flaky.flag');
    const uri = await writePlan(
      'flaky',
      plan`
        version: 1
        name: Flaky
        steps:
          shaky:
            run: test -f "${flag}" || { touch "${flag}"; echo first try fails; exit 3; }
          after:
            needs: [shaky]
            run: echo after
          other:
            run: echo independent
        `,
    );
    const first = await vscode.commands.executeCommand<RunSummary>('braid.runPlan', uri);
    assert.equal(first.status, 'failed');
    assert.deepEqual(first.steps, { shaky: 'failed', after: 'skipped', other: 'succeeded' });
    assert.equal(runRecord(first.runId).steps.shaky?.exitCode, 3);
    const again = await vscode.commands.executeCommand<RunSummary>('braid.retryFailed', first.runId);
    assert.equal(again.runId, first.runId, 'a retry keeps the run id');
    assert.equal(again.status, 'succeeded', JSON.stringify(again.steps));
    assert.deepEqual(again.steps, { shaky: 'succeeded', after: 'succeeded', other: 'succeeded' });
    assert.equal(runRecord(first.runId).steps.shaky?.attempts.length, 2);
  });

  it("terminals do not pile up: a succeeded step's closes, a failed one keeps its output and one true closing line", async () => {
    const api = await braidApi();
    const quick = Array.from({ length: 10 }, (_, i) => [
      `  q${i}:`,
      `    name: Pile ${i}`,
      `    run: echo quick ${i}`,
    ]).flat();
    const uri = await writePlan(
      'pile',
      [
        'version: 1',
        'name: Pile',
        'concurrency: 4',
        'steps:',
        ...quick,
        '  bad:',
        '    name: Pile bad',
        '    run: echo about to fail; exit 3',
      ].join('\n'),
    );
    const summary = await vscode.commands.executeCommand<RunSummary>('braid.runPlan', uri);
    assert.equal(summary.steps.bad, 'failed');
    const pile = () => vscode.window.terminals.filter((t) => t.name.startsWith('Pile '));
    await waitFor(
      "only the failed step's terminal left",
      () => pile().length === 1 && pile()[0]!.name === 'Pile bad (failed)',
    ).catch((err: Error) => {
      throw new Error(
        `${err.message}; terminals: ${pile()
          .map((t) => t.name)
          .join(', ')}`,
      );
    });
    const kept = api.terminals.keptTerminals().filter((k) => k.run === summary.runId);
    assert.deepEqual(
      kept.map((k) => k.step),
      ['bad'],
    );
    assert.match(kept[0]!.text, /about to fail/);
    assert.match(kept[0]!.text, /── failed: exited with code 3 ──\S*\r\n$/);
    assert.doesNotMatch(kept[0]!.text, /exit code: 1|failed to launch/);
    await requestScreenshot('terminal-kept-for-failure');
    // A retry of the step replaces its kept terminal.
    await vscode.commands.executeCommand('braid.retryStep', summary.runId, 'bad');
    await waitFor(
      'the old kept terminal gone and one new one',
      () => api.terminals.keptTerminals().filter((k) => k.run === summary.runId).length === 1 && pile().length === 1,
    );
  });

  it('braid.retryStep re-runs one named step of an ended run', async () => {
    const uri = await writePlan(
      'single',
      plan`
        version: 1
        name: Single
        steps:
          only:
            run: echo once
        `,
    );
    const first = await vscode.commands.executeCommand<RunSummary>('braid.runPlan', uri);
    const again = await vscode.commands.executeCommand<RunSummary>('braid.retryStep', first.runId, 'only');
    assert.equal(again.status, 'succeeded');
    assert.equal(runRecord(first.runId).steps.only?.attempts.length, 2);
  });

  it('braid.cancelStep and braid.cancelRun stop running steps; the run ends canceled', async () => {
    const api = await braidApi();
    const uri = await writePlan(
      'long',
      plan`
        version: 1
        name: Long
        steps:
          nap:
            run: sleep 60
          doze:
            run: sleep 60
        `,
    );
    const done = vscode.commands.executeCommand<RunSummary>('braid.runPlan', uri);
    const run = await waitFor('both steps running', () =>
      api.runs
        .runs()
        .find(
          (r) =>
            r.planName === 'Long' &&
            r.status === 'running' &&
            [...r.steps.values()].every((s) => s.status === 'running'),
        ),
    );
    await vscode.commands.executeCommand('braid.cancelStep', run.id, 'nap');
    await waitFor('nap canceled', () => api.runs.get(run.id)?.steps.get('nap')?.status === 'canceled');
    assert.equal(api.runs.get(run.id)?.steps.get('doze')?.status, 'running', 'the other step goes on');
    await vscode.commands.executeCommand('braid.cancelRun', run.id);
    const summary = await done;
    assert.equal(summary.status, 'canceled');
    assert.deepEqual(summary.steps, { nap: 'canceled', doze: 'canceled' });
    assert.equal(runRecord(run.id).status, 'canceled');
  });

  it("closing a step's terminal cancels that step", async () => {
    const api = await braidApi();
    const uri = await writePlan(
      'closeme',
      plan`
        version: 1
        name: Close me
        steps:
          sleeper:
            name: Sleeper
            run: sleep 60
        `,
    );
    const done = vscode.commands.executeCommand<RunSummary>('braid.runPlan', uri);
    const terminal = await waitFor('the step terminal', () =>
      vscode.window.terminals.find((t) => t.name.includes('Sleeper')),
    );
    await waitFor(
      'the step running',
      () =>
        api.runs
          .runs()
          .find((r) => r.planName === 'Close me')
          ?.steps.get('sleeper')?.status === 'running',
    );
    terminal.dispose();
    const summary = await done;
    // The step is canceled, not the run: a run with a canceled step did not succeed.
    assert.deepEqual(summary.steps, { sleeper: 'canceled' });
    assert.notEqual(summary.status, 'succeeded');
  });

  it('braid.notifications says which run ends are announced, read as the setting is now', async () => {
    const config = vscode.workspace.getConfiguration('braid');
    const announced = () =>
      (['succeeded', 'failed', 'canceled'] as const).filter((st) => notifies(readSettings().notifications, st));
    assert.deepEqual(announced(), ['succeeded', 'failed', 'canceled'], 'default: all');
    try {
      await config.update('notifications', 'failures', vscode.ConfigurationTarget.Workspace);
      assert.deepEqual(announced(), ['failed', 'canceled']);
      await config.update('notifications', 'none', vscode.ConfigurationTarget.Workspace);
      assert.deepEqual(announced(), []);
    } finally {
      await config.update('notifications', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it("braid.concurrency applies to a plan that sets none; a plan's own concurrency wins", async () => {
    const config = vscode.workspace.getConfiguration('braid');
    await config.update('concurrency', 1, vscode.ConfigurationTarget.Workspace);
    try {
      const body = ['steps:', '  p:', '    run: sleep 0.5', '  q:', '    run: sleep 0.5'];
      const serial = await vscode.commands.executeCommand<RunSummary>(
        'braid.runPlan',
        await writePlan('serial', ['version: 1', 'name: Serial', ...body].join('\n')),
      );
      const own = await vscode.commands.executeCommand<RunSummary>(
        'braid.runPlan',
        await writePlan('parallel', ['version: 1', 'name: Parallel', 'concurrency: 2', ...body].join('\n')),
      );
      const overlap = (id: string): boolean => {
        const { p, q } = runRecord(id).steps;
        return (
          Date.parse(p!.startedAt!) < Date.parse(q!.endedAt!) && Date.parse(q!.startedAt!) < Date.parse(p!.endedAt!)
        );
      };
      assert.equal(overlap(serial.runId), false, 'the setting (1) serialises a plan without concurrency');
      assert.equal(overlap(own.runId), true, 'concurrency: 2 in the plan wins over the setting');
    } finally {
      await config.update('concurrency', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('a run survives the window dropping its engine connection and is shown again after reattaching', async () => {
    const api = await braidApi();
    const uri = await writePlan(
      'survivor',
      plan`
        version: 1
        name: Survivor
        steps:
          wait:
            run: sleep 2; echo woke
          next:
            needs: [wait]
            run: echo next
        `,
    );
    const done = vscode.commands.executeCommand<RunSummary | undefined>('braid.runPlan', uri);
    const run = await waitFor('the run to start', () =>
      api.runs.runs().find((r) => r.planName === 'Survivor' && r.status === 'running'),
    );
    await api.reattach(); // what a window reload does: new connection, records re-read, snapshot applied
    await done.then(
      () => undefined,
      () => undefined,
    ); // the old connection's promise may end either way
    await waitFor(
      'the run to finish, seen through the new connection',
      () => api.runs.get(run.id)?.status === 'succeeded',
      30_000,
    );
    assert.deepEqual(statusesOf(runRecord(run.id)), { wait: 'succeeded', next: 'succeeded' });
    const node = api.tree.getChildren().find((n) => n.runId === run.id);
    assert.ok(node && api.tree.getTreeItem(node).contextValue === 'run.succeeded');
  });
});

describe('runs whose engine died', function () {
  this.timeout(60_000);

  it('show as interrupted after a reload, with Resume Run, which finishes them in the same run', async () => {
    const api = await braidApi();
    const uri = await writePlan(
      'orphan',
      plan`
        version: 1
        name: Orphan
        steps:
          stuck:
            run: sleep 30
          later:
            needs: [stuck]
            run: echo later
        `,
    );
    // A CLI run stands in for an engine that dies: killed with SIGKILL, it records nothing more.
    const cli = join(vscode.extensions.getExtension('braid.braid')!.extensionPath, 'out', 'cli.js');
    const child = spawn(process.execPath, [cli, 'run', uri.fsPath, '--json'], {
      cwd: workspaceRoot(),
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    });
    const runId = await new Promise<string>((resolve, reject) => {
      let buf = '';
      child.stdout.on('data', (d: Buffer) => {
        buf += d.toString();
        const m =
          /"type":"step","id":"stuck","status":"running"[^\n]*"run":"([^"]+)"|"run":"([^"]+)"[^\n]*"type":"step","id":"stuck","status":"running"/.exec(
            buf,
          );
        if (m) resolve((m[1] ?? m[2])!);
      });
      child.on('exit', () => reject(new Error(`the CLI run exited early: ${buf}`)));
    });
    child.kill('SIGKILL');
    await new Promise((res) => child.once('exit', res));
    await api.reattach();
    const run = await waitFor('the run in the tree', () => api.runs.get(runId));
    assert.equal(run.status, 'interrupted');
    const node = api.tree.getChildren().find((n) => n.runId === runId)!;
    assert.equal(api.tree.getTreeItem(node).contextValue, 'run.interrupted', 'the tree offers Resume Run');
    // Stop the orphaned sleep (its group lost its engine), then resume with a fixed plan.
    await writePlan(
      'orphan',
      plan`
        version: 1
        name: Orphan
        steps:
          stuck:
            run: echo unstuck
          later:
            needs: [stuck]
            run: echo later
        `,
    );
    const summary = await vscode.commands.executeCommand<RunSummary>('braid.resumeRun', runId);
    assert.equal(summary.runId, runId);
    assert.deepEqual(summary.steps, { stuck: 'succeeded', later: 'succeeded' });
  });
});
