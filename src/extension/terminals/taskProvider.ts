// "Run Task" lists a task per plan and per step (type `braid`, { plan, step? }). Running one
// starts that plan (or that step with what it needs) through the engine; its terminal shows the
// run's progress, one line a step change, and the run's end closes it with the run's exit code.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { EngineEvent } from '../../core/engine/types';
import { TERMINAL } from '../../core/status';
import type { RunSummary } from '../common/commandIds';
import type { Plans } from '../plans/plans';
import { stepKeys } from '../runs/runRequest';
import { StepPty } from './stepPty';
import { TASK_TYPE, type BraidTaskDefinition } from './stepTask';

export interface TaskProviderDeps {
  readonly plans: Plans;
  readonly launch: (
    uri: vscode.Uri,
    key: string | undefined,
    onStarted: (runId: string) => void,
  ) => Promise<RunSummary | undefined>;
  /** Subscribes to engine events while the task runs. */
  readonly onEvent: (listener: (e: EngineEvent) => void) => vscode.Disposable;
}

export class PlanTaskProvider implements vscode.TaskProvider {
  constructor(private readonly d: TaskProviderDeps) {}

  async provideTasks(): Promise<vscode.Task[]> {
    const tasks: vscode.Task[] = [];
    for (const uri of await this.d.plans.find()) {
      const folder = vscode.workspace.getWorkspaceFolder(uri);
      if (!folder) continue;
      const plan = path.relative(folder.uri.fsPath, uri.fsPath);
      tasks.push(this.task({ type: TASK_TYPE, plan }, folder));
      const { graph } = await this.d.plans.compile(uri).catch(() => ({ graph: undefined }));
      for (const key of graph ? stepKeys(graph) : [])
        tasks.push(this.task({ type: TASK_TYPE, plan, step: key }, folder));
    }
    return tasks;
  }

  resolveTask(task: vscode.Task): vscode.Task | undefined {
    const def = task.definition as Partial<BraidTaskDefinition>;
    if (typeof def.plan !== 'string' || (def.step !== undefined && typeof def.step !== 'string')) return undefined;
    // A step's terminal (stepTerminals.ts) shows a run that is going: resolving it must not launch one.
    if (def.run !== undefined) return undefined;
    const folder = typeof task.scope === 'object' ? task.scope : vscode.workspace.workspaceFolders?.[0];
    if (!folder) return undefined;
    return this.task(
      { type: TASK_TYPE, plan: def.plan, ...(def.step ? { step: def.step } : {}) },
      folder,
      task.definition,
    );
  }

  private task(
    def: BraidTaskDefinition,
    folder: vscode.WorkspaceFolder,
    original: vscode.TaskDefinition = def,
  ): vscode.Task {
    const uri = vscode.Uri.joinPath(folder.uri, def.plan);
    const name = def.step ? `${def.plan}: ${def.step}` : def.plan;
    const task = new vscode.Task(
      original,
      folder,
      name,
      'braid',
      new vscode.CustomExecution(async () => this.pty(uri, def.step)),
    );
    task.detail = def.step ? 'Run this step and what it needs' : 'Run the whole plan';
    return task;
  }

  private pty(uri: vscode.Uri, step: string | undefined): vscode.Pseudoterminal {
    let sub: vscode.Disposable | undefined;
    let runId: string | undefined;
    // Events that arrive before the run's id is known are the run's first: keep them until then.
    const early: EngineEvent[] = [];
    const pty = new StepPty(() => {
      sub?.dispose();
    });
    const show = (e: EngineEvent): void => {
      if (e.type === 'step' && (e.status === 'running' || TERMINAL.has(e.status)))
        pty.print(`${e.id}: ${e.status}${e.attempt > 1 ? ` (attempt ${e.attempt})` : ''}\n`);
    };
    sub = this.d.onEvent((e) => {
      if (runId === undefined) early.push(e);
      else if (e.run === runId) show(e);
    });
    const done = this.d.launch(uri, step, (id) => {
      runId = id;
      for (const e of early.splice(0)) if (e.run === id) show(e);
    });
    pty.print(`Braid: ${step ? `step ${step} of ` : ''}${vscode.workspace.asRelativePath(uri)}\n`);
    void done.then((end) => {
      sub?.dispose();
      pty.print(end ? `run ${end.runId} ${end.status}\n` : 'nothing ran\n');
      pty.finish(end?.status === 'succeeded' ? 0 : 1);
    });
    return pty;
  }
}
