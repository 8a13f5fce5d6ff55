// *Continue in Terminal* and *Send to Step…* (issue 34): a person steps into an agent step. The
// terminal runs `braid attach` (the CLI the extension ships) in the step's folder, so the session,
// the handover and what lands are the CLI's, one implementation for both faces; a message goes
// through the run's takeover folder (core/engine/steps/takeoverInbox.ts) as `braid say` sends it.
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import { RunStore } from '../../core/engine/records/runStore';
import { runIsLive } from '../../core/engine/review/landRecorded';
import { postTakeover } from '../../core/engine/steps/takeoverInbox';
import { takeoverTarget, type TakeoverKind } from '../../core/engine/takeoverTarget';
import type { StepStatus } from '../../core/status';
import type { StepRef } from '../common/commandIds';
import { pickRun, pickStep, refOf } from '../runs/runPickers';
import type { RunsModel } from '../runs/runsModel';
import type { RunView } from '../runs/runView';
import { requireTrust } from '../common/trust';

export interface TakeoverDeps {
  readonly runs: RunsModel;
  readonly cliPath: string;
}

/** The steps each command offers (the Steps view's menu offers the same, package.json). */
const OFFERED: Record<TakeoverKind, readonly StepStatus[]> = {
  attach: ['running', 'failed', 'conflict', 'review'],
  say: ['running'],
};

export class TakeoverCommands {
  constructor(private readonly d: TakeoverDeps) {}

  /** Opens a terminal in the step's folder running `braid attach RUN STEP`; returns it. */
  async continueInTerminal(arg?: string | StepRef, stepArg?: string): Promise<vscode.Terminal | undefined> {
    if (!requireTrust('hand a step to a terminal')) return undefined;
    const found = await this.agentStep(arg, stepArg, 'attach', 'Continue in Terminal');
    if (!found) return undefined;
    const { run, stepId, worktree } = found;
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
    const found = await this.agentStep(arg, stepArg, 'say', 'Send to Step');
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

  /**
   * The run and its step the user means, among those the menu offers for `kind`, once the core's
   * verdict (takeoverTarget.ts, as `braid attach`/`braid say` ask it) lets a person step in.
   */
  private async agentStep(
    arg: string | StepRef | undefined,
    stepArg: string | undefined,
    kind: TakeoverKind,
    title: string,
  ): Promise<{ run: RunView; stepId: string; worktree?: string } | undefined> {
    const statuses = OFFERED[kind];
    const ref = refOf(arg);
    const takes = (r: RunView) => [...r.steps.values()].some((s) => statuses.includes(s.status));
    const run = await pickRun(this.d.runs, ref.runId, takes, title, `Braid: no agent step is ${statuses.join(', ')}.`);
    if (!run) return undefined;
    const stepId = await pickStep(run, ref.stepId ?? stepArg, statuses, title);
    if (!stepId) return undefined;
    const step = run.steps.get(stepId)!;
    if (!statuses.includes(step.status)) {
      void vscode.window.showInformationMessage(
        `Braid: ${stepId} is ${step.status}; ${title} takes a step that is ${statuses.join(', ')}.`,
      );
      return undefined;
    }
    const rec = await new RunStore(run.workspace).load(run.id);
    const target = rec
      ? takeoverTarget(rec, stepId, kind, runIsLive(rec), step.status)
      : { ok: false as const, message: `run ${run.id} has no record` };
    if (!target.ok) {
      void vscode.window.showInformationMessage(`Braid: ${target.message}.`);
      return undefined;
    }
    return { run, stepId, ...(target.worktree !== undefined ? { worktree: target.worktree } : {}) };
  }
}
