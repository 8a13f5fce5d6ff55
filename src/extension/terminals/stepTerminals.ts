// Each running step is shown as a task (stepTask.ts) whose pseudoterminal (stepPty.ts) shows its
// live output; closing that terminal cancels the step. Output is pushed from engine events and
// nothing polls; only a step adopted after a reload reads its log once, for what it printed before
// this window attached. A task's terminal closes with its step, so a big plan leaves no pile of
// terminals; a step that went wrong keeps a plain one in its place (keptTerminals.ts).
// Opening a task's terminal takes VS Code 200–300 ms, so one terminal is opened ahead, for the
// pending step most likely to start next (nextTerminal.ts): it says what it waits for, and becomes
// the step's terminal when the step starts, so the step's first output shows at once. It closes
// if the step ends without running (skipped, canceled) or the run ends.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import * as vscode from 'vscode';
import type { StepRecord } from '../../core/engine/records/runRecord';
import { RunStore } from '../../core/engine/records/runStore';
import { foldStep, startedAttempt } from '../../core/engine/records/stepFold';
import type { EngineEvent } from '../../core/engine/types';
import { endSentence, TERMINAL } from '../../core/status';
import type { LiveRunRecord } from '../../protocol/engine';
import { AlternativeLines } from './alternativeLines';
import { nextTerminal, runningNeeds } from './nextTerminal';
import type { RunsModel } from '../runs/runsModel';
import { KeptTerminals } from './keptTerminals';
import { executeStepTask } from './stepTask';
import { StepPty } from './stepPty';
import type { KeepTerminals } from '../common/config';
import { closingLine, keepsTerminal } from './terminalPolicy';

export interface StepTerminalDeps {
  readonly runs: RunsModel;
  readonly cancelStep: (runId: string, stepId: string) => void;
  readonly log: (line: string) => void;
  /** The `braid.keepTerminals` setting, read when a step ends. */
  readonly keep: () => KeepTerminals;
}

/**
 * How long a closed terminal waits before it cancels its step. A window that reloads or closes
 * closes every terminal too (before the extension host goes), and that must not cancel the run
 * the engine keeps going: those closes say `Shutdown`, and any such close in this time, or the
 * extension's own shutdown, drops the pending cancels.
 */
const CLOSE_GRACE_MS = 400;

export class StepTerminals implements vscode.Disposable {
  private readonly ptys = new Map<string, StepPty>();
  /** Each shown step's record, folded from its events as run.json's is: it says when an attempt starts. */
  private readonly records = new Map<string, StepRecord>();
  private readonly executions = new Map<string, vscode.TaskExecution>();
  /** Terminals kept after their step went wrong. */
  private readonly kept = new KeptTerminals();
  private readonly sub: vscode.Disposable;
  private readonly closeSub: vscode.Disposable;
  private shuttingDown = false;
  private readonly pendingCancels = new Set<ReturnType<typeof setTimeout>>();
  /** The one terminal opened ahead of its step's start, and its task's execution once VS Code gives it. */
  private ahead:
    { readonly runId: string; readonly stepId: string; readonly pty: StepPty; exec?: vscode.TaskExecution } | undefined;
  private readonly marks = new Map<string, AlternativeLines>();
  /** Steps whose terminal opened ahead was closed by the user: not opened ahead again. */
  private readonly declined = new Set<string>();

  constructor(private readonly deps: StepTerminalDeps) {
    this.closeSub = vscode.window.onDidCloseTerminal((t) => {
      if (t.exitStatus?.reason === vscode.TerminalExitReason.Shutdown) this.stopCancels();
      this.kept.closed(t);
    });
    // A task ended by the workbench (its terminal closed, "Terminate Task") while its step runs:
    // the user means the step. Not every workbench calls the pseudoterminal's close() for it.
    this.sub = vscode.tasks.onDidEndTask((e) => {
      for (const [key, exec] of this.executions) {
        if (exec !== e.execution) continue;
        const pty = this.ptys.get(key);
        if (pty && !pty.isEnded) pty.close();
      }
    });
  }

  /** Feed one engine event: a step that starts gets a task; its output and end go to its terminal. */
  handle(e: EngineEvent): void {
    if (e.type === 'run') {
      this.openAhead(e.run);
      return;
    }
    if (e.type !== 'step' && e.type !== 'output') return;
    if (e.type === 'step') {
      this.onStep(e);
      this.openAhead(e.run);
      return;
    }
    const key = `${e.run}/${e.id}`;
    if (e.type === 'output') {
      const pty = this.ptys.get(key);
      if (e.skippedLines !== undefined)
        pty?.print(
          `\n\x1b[2m── ${e.skippedLines.toLocaleString('en-US')} lines not shown: the step prints faster than a terminal can (Show Log has them) ──\x1b[0m\n`,
        );
      // A best-of step's alternatives share its terminal: each line says whose it is.
      pty?.print(e.alternative !== undefined ? this.alternativeLines(key).mark(e.alternative, e.text) : e.text);
    }
  }

  /** The marker of a best-of step's alternatives' lines, one a step (lines continue per alternative). */
  private alternativeLines(key: string): AlternativeLines {
    let m = this.marks.get(key);
    if (!m) this.marks.set(key, (m = new AlternativeLines()));
    return m;
  }

  private onStep(e: Extract<EngineEvent, { type: 'step' }>): void {
    const key = `${e.run}/${e.id}`;
    const prev = this.records.get(key);
    const next = foldStep(prev, e);
    this.records.set(key, next);
    if (e.status === 'running') {
      this.kept.unkeep(key);
      const existing = this.ptys.get(key);
      if (existing && !existing.isEnded) {
        // The running attempt reported again (a merge-back's lock wait and grant) is not a new one.
        if (startedAttempt(prev, next)) existing.print(`\r\n\x1b[2m── attempt ${e.attempt} ──\x1b[0m\r\n`);
        return;
      }
      void this.start(e.run, e.id, e.attempt);
      return;
    }
    if (TERMINAL.has(e.status)) {
      this.records.delete(key);
      const pty = this.ptys.get(key);
      if (!pty) {
        // It ended without running (skipped, canceled): its terminal opened ahead says so and closes.
        if (this.ahead?.runId === e.run && this.ahead.stepId === e.id)
          this.closeAhead(closingLine({ status: e.status, message: endSentence(e) }));
        return;
      }
      pty.print(
        `\r\n\x1b[2m${closingLine({ status: e.status, exitCode: e.exitCode, signal: e.signal, message: endSentence(e) })}\x1b[0m\r\n`,
      );
      if (keepsTerminal(e.status, this.deps.keep())) {
        const name = `${this.deps.runs.get(e.run)?.steps.get(e.id)?.name ?? e.id} (${e.status})`;
        this.kept.keep(key, name, e.status, pty.transcript.text());
      }
      // Always 0: the task's own exit code would make VS Code print a line of its own, and the
      // step's outcome is already said above (a failure is not "failed to launch").
      pty.finish(0);
      this.ptys.delete(key);
      this.executions.delete(key);
    }
  }

  /**
   * A run that was already going when this window connected (a reload, a second window): each
   * running step gets its terminal back, opened with the tail of its log. Steps that already have
   * a live terminal are left alone, so every snapshot can be adopted.
   */
  adopt(record: LiveRunRecord): void {
    if (record.status !== 'running') return;
    const paths = new RunStore(record.workspace).paths(record.id);
    for (const [id, st] of Object.entries(record.steps)) {
      if (st.status !== 'running' || this.ptys.get(`${record.id}/${id}`)?.isEnded === false) continue;
      const earlier = readTail(paths.log(id), ADOPT_TAIL_BYTES);
      // Its record as the engine holds it: the events that follow fold onto it.
      this.records.set(`${record.id}/${id}`, st);
      void this.start(record.id, id, Math.max(1, st.attempts.length), earlier);
    }
  }

  /** The terminals kept after their steps went wrong: the step, the terminal's name and what it shows. */
  keptTerminals(): { readonly run: string; readonly step: string; readonly name: string; readonly text: string }[] {
    return this.kept.list();
  }

  /** The task execution showing a step now, if any (tests and "show terminal"). */
  execution(runId: string, stepId: string): vscode.TaskExecution | undefined {
    return this.executions.get(`${runId}/${stepId}`);
  }

  /**
   * Keeps the one terminal opened ahead on the step most likely to start next: it stays with its
   * step while that step can still start, and closes when it cannot or its run ended. The run that
   * just changed takes it from another run's step (a run held at a pick or a budget would keep it
   * from every other run otherwise).
   */
  private openAhead(runId: string): void {
    if (this.shuttingDown) return;
    const a = this.ahead;
    const aRun = a && this.deps.runs.get(a.runId);
    const holds = a !== undefined && aRun?.status === 'running' && nextTerminal(aRun, a.stepId) === a.stepId;
    if (holds && a.runId === runId) return;
    const run = this.deps.runs.get(runId);
    const stepId = run?.status === 'running' ? nextTerminal(run) : undefined;
    const wanted =
      run !== undefined &&
      stepId !== undefined &&
      !this.declined.has(`${runId}/${stepId}`) &&
      !this.ptys.has(`${runId}/${stepId}`);
    if (holds && !wanted) return;
    this.closeAhead();
    if (!wanted) return;
    const pty = new StepPty(() => (this.ahead?.pty === pty ? this.declineAhead() : this.closed(runId, stepId)));
    const needs = runningNeeds(run, stepId).map((n) => run.steps.get(n)?.name ?? n);
    pty.print(`\x1b[2mwaiting for ${needs.join(', ')}…\x1b[0m\n`);
    const ahead: NonNullable<StepTerminals['ahead']> = { runId, stepId, pty };
    this.ahead = ahead;
    void executeStepTask(this.deps.runs.get(runId), runId, stepId, pty).then((exec) => {
      if (!exec) return;
      ahead.exec = exec;
      // It started meanwhile: its execution is the step's now.
      if (this.ahead !== ahead && this.ptys.get(`${runId}/${stepId}`) === pty)
        this.executions.set(`${runId}/${stepId}`, exec);
    });
  }

  /** Closes the terminal opened ahead, after `line` if given (its step ended without running). */
  private closeAhead(line?: string): void {
    const a = this.ahead;
    if (!a) return;
    this.ahead = undefined;
    if (line) a.pty.print(`\r\n\x1b[2m${line}\x1b[0m\r\n`);
    a.pty.finish(0);
  }

  /** The user closed the terminal opened ahead: the step has not started, so nothing to cancel. */
  private declineAhead(): void {
    if (!this.ahead) return;
    this.declined.add(`${this.ahead.runId}/${this.ahead.stepId}`);
    this.ahead = undefined;
  }

  private async start(runId: string, stepId: string, attempt: number, earlier?: string): Promise<void> {
    const key = `${runId}/${stepId}`;
    const a = this.ahead;
    if (a && a.runId === runId && a.stepId === stepId && earlier === undefined && !a.pty.isEnded) {
      // Its terminal is open already (or opening): the step's output goes there.
      this.ahead = undefined;
      this.ptys.set(key, a.pty);
      if (attempt > 1) a.pty.print(`\x1b[2m── attempt ${attempt} ──\x1b[0m\n`);
      if (a.exec) this.executions.set(key, a.exec);
      return;
    }
    const pty = new StepPty(() => this.closed(runId, stepId));
    this.ptys.set(key, pty);
    if (earlier !== undefined)
      pty.print(`\x1b[2m── reattached: attempt ${attempt}, the output so far ──\x1b[0m\n${earlier}`);
    else if (attempt > 1) pty.print(`\x1b[2m── attempt ${attempt} ──\x1b[0m\n`);
    const exec = await executeStepTask(this.deps.runs.get(runId), runId, stepId, pty);
    if (exec) this.executions.set(key, exec);
  }

  /** The user closed a step's terminal (or ended its task): they mean the step, unless the window is going. */
  private closed(runId: string, stepId: string): void {
    if (this.shuttingDown) return;
    const timer = setTimeout(() => {
      this.pendingCancels.delete(timer);
      if (this.shuttingDown) return;
      const now = this.deps.runs.get(runId)?.steps.get(stepId)?.status;
      this.deps.log(`terminal of ${runId}/${stepId} closed while ${now ?? 'unknown'}`);
      if (now && !TERMINAL.has(now)) this.deps.cancelStep(runId, stepId);
    }, CLOSE_GRACE_MS);
    this.pendingCancels.add(timer);
  }

  private stopCancels(): void {
    this.shuttingDown = true;
    for (const t of this.pendingCancels) clearTimeout(t);
    this.pendingCancels.clear();
  }

  dispose(): void {
    this.stopCancels();
    this.closeSub.dispose();
    this.sub.dispose();
    for (const pty of this.ptys.values()) pty.finish(0);
    this.ptys.clear();
    this.closeAhead();
    this.kept.dispose();
  }
}

/** What a reattached terminal shows of the output before it: enough to see where the step is. */
const ADOPT_TAIL_BYTES = 64 * 1024;

/** The last `max` bytes of a file ('' if it is missing), from a line start where one is near. */
function readTail(file: string, max: number): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const size = fstatSync(fd).size;
    const n = Math.min(size, max);
    const buf = Buffer.alloc(n);
    readSync(fd, buf, 0, n, size - n);
    const text = buf.toString('utf8');
    if (n === size) return text;
    const nl = text.indexOf('\n');
    return nl >= 0 ? text.slice(nl + 1) : text;
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
