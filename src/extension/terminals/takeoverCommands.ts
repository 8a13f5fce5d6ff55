// *Continue in Terminal* and *Send to Step…* (issue 34): a person steps into an agent step. The
// terminal runs `braid attach` (the CLI the extension ships) in the step's folder, so the session,
// the handover and what lands are the CLI's, one implementation for both faces; a message goes
// through the run's takeover folder (core/engine/steps/takeoverInbox.ts) as `braid say` sends it.
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import { worktreePath } from '../../core/engine/isolation/worktree';
import { RunStore } from '../../core/engine/records/runStore';
import { runIsLive } from '../../core/engine/review/landRecorded';
import { takesPeople } from '../../core/engine/steps/takeover';
import { postTakeover } from '../../core/engine/steps/takeoverInbox';
import type { StepRef } from '../common/commandIds';
import { pickRun, pickStep } from '../common/pickers';
import { refOf } from '../runs/runCommands';
import type { RunsModel } from '../runs/runsModel';
import type { RunView } from '../runs/runView';
import { requireTrust } from '../common/trust';

export interface TakeoverDeps {
  readonly runs: RunsModel;
  readonly cliPath: string;
}

const ATTACHABLE = ['running', 'failed', 'conflict', 'review'] as const;

export class TakeoverCommands {
  constructor(private readonly d: TakeoverDeps) {}

  /** Opens a terminal in the step's folder running `braid attach RUN STEP`; returns it. */
  async continueInTerminal(arg?: string | StepRef, stepArg?: string): Promise<vscode.Terminal | undefined> {
    if (!requireTrust('hand a step to a terminal')) return undefined;
    const found = await this.agentStep(arg, stepArg, ATTACHABLE, 'Continue in Terminal');
    if (!found) return undefined;
    const { run, stepId, worktree } = found;
    // A live run's process takes over a step only while it runs (as `braid attach` says).
    const status = run.steps.get(stepId)!.status;
    if (status !== 'running' && (await this.live(run))) {
      void vscode.window.showInformationMessage(
        `Braid: ${stepId} is ${status} in run ${run.id}, which is still going: Continue in Terminal takes it once the run has ended.`,
      );
      return undefined;
    }
    const cwd = worktree && existsSync(worktree) ? worktree : run.workspace;
    const terminal = vscode.window.createTerminal({
      name: `Braid: ${stepId}`,
      cwd,
      shellPath: process.execPath,
      shellArgs: [this.d.cliPath, 'attach', run.id, stepId, '--workspace', run.workspace],
      env: { ELECTRON_RUN_AS_NODE: '1' },
      iconPath: new vscode.ThemeIcon('terminal'),
    });
    terminal.show();
    return terminal;
  }

  /** Asks for a message and sends it to the running step; true once the run took it. */
  async sendToStep(arg?: string | StepRef, stepArg?: string, given?: string): Promise<boolean> {
    if (!requireTrust('send a message to a step')) return false;
    const found = await this.agentStep(arg, stepArg, ['running'], 'Send to Step');
    if (!found) return false;
    const { run, stepId } = found;
    const message =
      given ??
      (await vscode.window.showInputBox({
        title: `Send to ${stepId}`,
        prompt: 'The agent continues its session with this as your next message.',
        ignoreFocusOut: true,
        validateInput: (v) => (v.trim() === '' ? 'Type a message' : undefined),
      }));
    if (message === undefined || message.trim() === '') return false;
    const store = new RunStore(run.workspace);
    if (!(await this.live(run))) {
      void vscode.window.showWarningMessage(`Braid: run ${run.id} is not running.`);
      return false;
    }
    let going = true;
    const posted = await postTakeover(store.paths(run.id).dir, { kind: 'say', step: stepId, message }, () => going);
    going = false;
    if (!posted.ok) {
      void vscode.window.showWarningMessage(`Braid: ${posted.message}`);
      return false;
    }
    void vscode.window.showInformationMessage(`Braid: sent to ${stepId}.`);
    return true;
  }

  private async live(run: RunView): Promise<boolean> {
    const r = await new RunStore(run.workspace).load(run.id);
    return r !== undefined && runIsLive(r);
  }

  /** The run, an agent step of it in one of `statuses`, and where its worktree is (kept, or the running attempt's). */
  private async agentStep(
    arg: string | StepRef | undefined,
    stepArg: string | undefined,
    statuses: readonly string[],
    title: string,
  ): Promise<{ run: RunView; stepId: string; worktree?: string } | undefined> {
    const ref = refOf(arg);
    const takes = (r: RunView) => [...r.steps.values()].some((s) => statuses.includes(s.status));
    const run = await pickRun(this.d.runs, ref.runId, takes, title, `Braid: no agent step is ${statuses.join(', ')}.`);
    if (!run) return undefined;
    const stepId = await pickStep(run, ref.stepId ?? stepArg, statuses as never, title);
    if (!stepId) return undefined;
    const step = run.steps.get(stepId)!;
    if (!statuses.includes(step.status)) {
      void vscode.window.showInformationMessage(
        `Braid: ${stepId} is ${step.status}; ${title} takes a step that is ${statuses.join(', ')}.`,
      );
      return undefined;
    }
    const rec = await new RunStore(run.workspace).load(run.id);
    const snap = rec?.graph.steps.find((s) => s.id === stepId) as
      { kind?: string; agent?: string; isolation?: string } | undefined;
    const agent = rec?.graph.agents[snap?.agent ?? ''];
    if (snap?.kind !== 'prompt' || !agent || !takesPeople(agent)) {
      void vscode.window.showInformationMessage(
        `Braid: ${stepId} is not an agent step a person can step into (a shell step, or an agent that runs its prompt as a script).`,
      );
      return undefined;
    }
    const kept = rec?.steps[stepId]?.worktree;
    const worktree = kept ?? (snap.isolation === 'worktree' ? worktreePath(run.workspace, run.id, stepId) : undefined);
    return { run, stepId, ...(worktree !== undefined ? { worktree } : {}) };
  }
}
