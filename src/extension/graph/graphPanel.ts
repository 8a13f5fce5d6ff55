// The graph panel's host: one webview panel per plan showing the expanded DAG (mermaid, drawn in
// the page; its message from graphMessage.ts), live statuses, the selected step's log and buttons.
// Every message from the page is parsed with src/protocol/webview.ts and acts only on run and step
// ids this host knows; its buttons are graphActions.ts's. graphPanels.ts opens the panels and
// restores them after a reload.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { LogLines } from '../../core/engine/records/logLines';
import { attemptHeader } from '../../core/engine/records/stepLog';
import { RunStore } from '../../core/engine/records/runStore';
import { graphFromSnapshot } from '../../core/engine/records/snapshot';
import { alternativeId } from '../../core/plan/alternativeStep';
import type { Diagnostic, Graph } from '../../core/plan/types';
import {
  MAX_PROBLEMS,
  parseWebviewMessage,
  type HostMessage,
  type WebviewMessage,
  type WebviewState,
} from '../../protocol/webview';
import { graphHtml } from './graphHtml';
import { LOG_TAIL, LogFeed } from './logFeed';
import type { Plans } from '../plans/plans';
import type { RunCommands } from '../runs/runCommands';
import { nodeUpdate } from './graphNodes';
import { dropped, graphAction } from './graphActions';
import { alternativeOf, bestOfSteps, stepUpdates } from './graphAlternatives';
import { graphMessage } from './graphMessage';
import { stepTime } from '../runs/treeText';
import type { RunsModel, StepChange } from '../runs/runsModel';
import type { RunView } from '../runs/runView';
import { runHeader } from './runHeader';
import type { ViewCommands } from '../runs/viewCommands';

const PAGE = 1000;
/**
 * The selected step of each plan's panel, kept by the host too: a page's own state can be lost
 * in a reload (a web workbench persists it asynchronously), the selection should not be.
 */
const SELECTION = 'braid.graph.selection';

export interface GraphPanelDeps {
  readonly context: vscode.ExtensionContext;
  readonly plans: Plans;
  /** The one model the panel projects: it subscribes to nothing else about runs. */
  readonly runs: RunsModel;
  readonly commands: RunCommands;
  readonly views: ViewCommands;
}

export class GraphPanel implements vscode.Disposable {
  private ready = false;
  private runId: string | undefined;
  private selected: string | undefined;
  private graph: Graph | undefined;
  /** Matrix groups the user expanded; every other group is drawn as one node with its counts. */
  private expanded: ReadonlySet<string>;
  /** Messages posted (tests read them to see what the page was told). */
  readonly posted: HostMessage[] = [];
  /** The selected step's live output, batched for the page. */
  private readonly feed = new LogFeed((lines, startLine, stderr) => {
    if (this.runId && this.selected)
      this.post({
        type: 'log',
        runId: this.runId,
        stepId: this.selected,
        lines,
        ...(startLine !== undefined ? { startLine } : {}),
        ...(stderr.length > 0 ? { stderr } : {}),
      });
  });
  private logIndex: LogLines | undefined;
  /** The attempt whose header line the selected step's log got last (a running step is reported again while it waits for a lock). */
  private headed: string | undefined;
  private readonly subs: vscode.Disposable[] = [];

  constructor(
    readonly panel: vscode.WebviewPanel,
    readonly plan: vscode.Uri,
    state: WebviewState,
    private readonly d: GraphPanelDeps,
    onGone: () => void,
  ) {
    this.runId = state.runId ?? d.runs.latestOf(plan.fsPath)?.id;
    this.expanded = new Set(state.expandedGroups ?? []);
    this.selected =
      state.selectedStepId ?? d.context.workspaceState.get<Record<string, string>>(SELECTION)?.[plan.fsPath];
    const web = panel.webview;
    const nonce = randomBytes(16).toString('base64');
    web.html = graphHtml({
      cspSource: web.cspSource,
      nonce,
      scriptUri: web.asWebviewUri(vscode.Uri.joinPath(d.context.extensionUri, 'out', 'webview', 'main.js')).toString(),
      styleUri: web.asWebviewUri(vscode.Uri.joinPath(d.context.extensionUri, 'media', 'graph.css')).toString(),
    });
    this.subs.push(
      web.onDidReceiveMessage((raw: unknown) => this.receive(raw)),
      panel.onDidDispose(() => {
        onGone();
        this.dispose();
      }),
      d.runs.onDidStart((run) => {
        this.changes++;
        this.onRunStarted(run);
      }),
      d.runs.onDidChangeStep((c) => {
        this.changes++;
        this.onStepChanged(c);
      }),
      d.runs.onDidReplace((run) => {
        this.changes++;
        if (run.id === this.runId) this.postStatuses(run);
      }),
      vscode.workspace.onDidSaveTextDocument((doc) => {
        if (doc.uri.fsPath !== plan.fsPath) return;
        this.changes++;
        void this.postGraph();
      }),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.fsPath !== plan.fsPath) return;
        this.changes++;
        this.scheduleGraph();
      }),
    );
    // Running steps' times tick on their nodes, once a second, only while some step of the shown run runs.
    this.ticker = setInterval(() => this.tick(), 1000);
    // The first graph message is made while the page loads (another process), not after its
    // `ready`: at 5,000 steps that is ~0.2–0.6 s of the host's off the wait. A timer first, so the
    // page's HTML goes out before this holds the host's thread.
    setTimeout(() => {
      const at = this.changes;
      if (this.ready) return;
      const message = this.graphMessage();
      message.catch(() => {}); // its failure is postGraph's to report, if it is still wanted
      this.early = { at, message };
    }, 0);
  }

  /** Bumped by whatever can change the graph message (an edit, a run, a step): a message made before is stale. */
  private changes = 0;
  private early: { at: number; message: ReturnType<GraphPanel['graphMessage']> } | undefined;

  private readonly ticker: ReturnType<typeof setInterval>;

  private tick(): void {
    const run = this.run();
    if (!this.ready || !run || run.status !== 'running' || !this.panel.visible) return;
    const now = Date.now();
    const updates = [...run.steps.values()]
      .filter((s) => s.status === 'running')
      .map((s) => ({ stepId: s.id, status: s.status, time: stepTime(s, now)! }));
    this.post({ type: 'status', runId: run.id, updates, run: runHeader(run, this.d.runs, now) });
  }

  get shownRun(): string | undefined {
    return this.runId;
  }

  reveal(runId?: string): void {
    if (runId && runId !== this.runId) {
      this.changes++;
      this.runId = runId;
      void this.postGraph();
    }
    this.panel.reveal(undefined, true);
  }

  private graphTimer: ReturnType<typeof setTimeout> | undefined;
  private scheduleGraph(): void {
    clearTimeout(this.graphTimer);
    this.graphTimer = setTimeout(() => void this.postGraph(), 300);
  }

  private post(msg: HostMessage): void {
    if (!this.ready) return;
    this.posted.push(msg);
    if (this.posted.length > 500) this.posted.splice(0, this.posted.length - 500);
    void this.panel.webview.postMessage(msg);
  }

  private run(): RunView | undefined {
    return this.runId ? this.d.runs.get(this.runId) : undefined;
  }

  /** The plan as the file says now (or as the run ran, when the file no longer compiles), else why it cannot be drawn. */
  private async currentGraph(): Promise<{ graph?: Graph; diagnostics: readonly Diagnostic[] }> {
    const compiled = await this.d.plans.compile(this.plan).catch((e: Error) => ({
      graph: undefined,
      diagnostics: [
        {
          file: this.plan.fsPath,
          range: { start: { line: 0, column: 0 }, end: { line: 0, column: 0 } },
          severity: 'error' as const,
          code: 'unreadable',
          message: `cannot read plan: ${e.message}`,
        },
      ],
    }));
    if (compiled.graph) return compiled;
    const run = this.run();
    const rec = run ? await new RunStore(run.workspace).load(run.id) : undefined;
    return rec ? { graph: graphFromSnapshot(rec.graph), diagnostics: [] } : { diagnostics: compiled.diagnostics };
  }

  /** The problems last shown in place of the graph, for `openProblem`. */
  private problems: readonly Diagnostic[] = [];

  private postProblems(diagnostics: readonly Diagnostic[]): void {
    const errors = [...diagnostics].sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1));
    this.problems = errors.slice(0, MAX_PROBLEMS);
    this.post({
      type: 'problems',
      file: vscode.workspace.asRelativePath(this.plan),
      problems: this.problems.map((d) => ({
        line: d.range.start.line,
        column: d.range.start.column,
        severity: d.severity === 'error' ? 'error' : 'warning',
        message: d.message.slice(0, 4096),
      })),
      more: errors.length - this.problems.length,
    });
  }

  /** The graph message of the plan and run shown now, or the problems that stand in its way. */
  private async graphMessage(): Promise<
    | { graph: Graph; run: RunView | undefined; message: HostMessage; bestOf: readonly string[] }
    | { diagnostics: readonly Diagnostic[] }
  > {
    const { graph, diagnostics } = await this.currentGraph();
    if (!graph) return { diagnostics };
    const run = this.run();
    return { graph, run, ...graphMessage(graph, run, this.expanded, this.d.runs) };
  }

  private async postGraph(): Promise<void> {
    const early = this.early;
    this.early = undefined;
    const made = await (early?.at === this.changes ? early.message : this.graphMessage());
    if (!('graph' in made)) {
      this.postProblems(made.diagnostics);
      return;
    }
    this.problems = [];
    this.graph = made.graph;
    this.post(made.message);
    // What the alternatives' statuses say beyond the status itself (won, may be picked): a status message.
    if (made.run) this.postAlternatives(made.run, made.bestOf);
  }

  private postAlternatives(run: RunView, bestOf: readonly string[]): void {
    const updates = bestOf.flatMap((id) => {
      const v = run.steps.get(id);
      return v ? stepUpdates(v) : [];
    });
    if (updates.length > 0) this.post({ type: 'status', runId: run.id, updates });
  }

  private onRunStarted(run: RunView): void {
    // A new run of this plan takes over the panel.
    if (!this.ready || run.planFile !== this.plan.fsPath || run.id === this.runId) return;
    this.runId = run.id;
    void this.postGraph().then(() => this.sendLogTail());
  }

  /** Every node of the shown run restyled from the model (its record was read anew). */
  private postStatuses(run: RunView): void {
    if (!this.ready || !this.graph) return;
    const updates = this.graph.order.flatMap((id) => {
      const s = run.steps.get(id);
      return s ? stepUpdates(s) : [];
    });
    this.post({ type: 'status', runId: run.id, run: runHeader(run, this.d.runs), updates });
  }

  /** One step of the model changed: restyle its node; the selected step's output and attempts go to the log. */
  private onStepChanged({ run, step, event: e }: StepChange): void {
    if (!this.ready || run.id !== this.runId) return;
    if (e.type === 'output') {
      // A best-of step's output is its alternatives': an alternative's node shows its own alone.
      const from = e.alternative !== undefined ? alternativeId(e.id, e.alternative) : e.id;
      if (e.id === this.selected || from === this.selected)
        this.feed.output(from, e.text, e.skippedLines, e.stream === 'stderr');
      return;
    }
    if (e.type === 'lock') return;
    this.post({
      type: 'status',
      runId: run.id,
      run: runHeader(run, this.d.runs),
      updates: e.type === 'step' ? stepUpdates(step) : [nodeUpdate(step)],
    });
    if (e.type !== 'step' || e.status !== 'running' || e.id !== this.selected) return;
    // Once an attempt: a running step is reported again while its merge-back waits for a lock.
    const attempt = `${run.id}/${e.id}/${e.attempt}`;
    if (attempt !== this.headed) {
      this.headed = attempt;
      this.feed.flush();
      this.post({
        type: 'log',
        runId: run.id,
        stepId: e.id,
        lines: [attemptHeader(e.attempt, step.name, new Date(e.time)).trimEnd()],
        attemptBoundary: e.attempt,
      });
      this.feed.counted(1);
    }
  }

  /** The selected step's log, indexed by line: tails and pages read only their own bytes. */
  private logFile(): LogLines | undefined {
    const run = this.run();
    if (!run || !this.selected) return undefined;
    const file = new RunStore(run.workspace).paths(run.id).log(this.selected);
    if (this.logIndex?.file !== file) this.logIndex = new LogLines(file);
    return this.logIndex;
  }

  private async sendLogTail(): Promise<void> {
    const run = this.run();
    const log = this.logFile();
    if (!run || !this.selected || !log) return;
    const stepId = this.selected;
    // Output arriving while the file is read is in the file already: held back, then dropped (LogFeed.hold).
    this.feed.hold();
    try {
      const count = await log.refresh();
      const start = Math.max(0, count - LOG_TAIL);
      const lines = await log.read(start, count);
      if (this.run()?.id !== run.id || this.selected !== stepId) return; // moved on meanwhile
      this.feed.reset(stepId, count);
      this.post({ type: 'log', runId: run.id, stepId, lines, reset: true, startLine: start });
    } finally {
      this.feed.release();
    }
  }

  private receive(raw: unknown): void {
    const msg = parseWebviewMessage(raw);
    if (!msg) {
      console.warn(`braid: dropped a malformed message from the graph panel: ${JSON.stringify(raw)?.slice(0, 200)}`);
      return;
    }
    void this.act(msg);
  }

  /** A step of the graph shown, or an alternative of one of its best-of steps. */
  private known(stepId: string | undefined): boolean {
    return (
      stepId !== undefined &&
      ((this.graph?.steps.has(stepId) ?? false) || alternativeOf(this.graph, stepId) !== undefined)
    );
  }

  private async act(msg: WebviewMessage): Promise<void> {
    switch (msg.type) {
      case 'ready':
        this.ready = true;
        await this.postGraph();
        if (this.selected)
          this.post({
            type: 'restore',
            state: { selectedStepId: this.selected, ...(this.runId ? { runId: this.runId } : {}) },
          });
        await this.sendLogTail();
        return;
      case 'select':
        if (!this.known(msg.stepId)) return dropped(msg, 'unknown step');
        this.selected = msg.stepId;
        void this.d.context.workspaceState.update(SELECTION, {
          ...this.d.context.workspaceState.get<Record<string, string>>(SELECTION),
          [this.plan.fsPath]: msg.stepId,
        });
        await this.sendLogTail();
        return;
      case 'openLog':
        if (msg.runId !== this.runId || !this.known(msg.stepId)) return dropped(msg, 'not a step of the shown run');
        await this.d.views.showLog(msg.runId, msg.stepId);
        return;
      case 'requestLogPage': {
        if (msg.runId !== this.runId || msg.stepId !== this.selected) return dropped(msg, 'not the shown run and step');
        const log = this.logFile();
        if (!log) return;
        const before = Math.min(msg.beforeLine, await log.refresh());
        const start = Math.max(0, before - PAGE);
        this.post({
          type: 'logPage',
          runId: msg.runId,
          stepId: msg.stepId,
          beforeLine: before,
          startLine: start,
          lines: await log.read(start, before),
        });
        return;
      }
      case 'openProblem': {
        const d = this.problems[msg.index];
        if (!d) return dropped(msg, 'no such problem shown');
        const pos = new vscode.Position(d.range.start.line, d.range.start.column);
        await vscode.window.showTextDocument(this.plan, {
          viewColumn: vscode.ViewColumn.One,
          selection: new vscode.Range(pos, pos),
        });
        return;
      }
      case 'expandGroups': {
        const known = new Set<string | undefined>(
          this.graph?.order.map((id) => this.graph!.steps.get(id)!.matrix?.group),
        );
        for (const id of this.graph ? bestOfSteps(this.graph) : []) known.add(id);
        const groups = msg.groups.filter((g) => known.has(g));
        if (groups.length !== msg.groups.length) dropped(msg, 'unknown groups left out');
        this.expanded = new Set(groups);
        this.changes++;
        await this.postGraph();
        return;
      }
      case 'action':
        if (msg.stepId !== undefined && !this.known(msg.stepId)) return dropped(msg, 'unknown step');
        if (msg.runId !== undefined && msg.runId !== this.runId) return dropped(msg, 'not the shown run');
        await graphAction(msg, {
          plan: this.plan,
          graph: this.graph,
          runId: this.runId,
          commands: this.d.commands,
          views: this.d.views,
        });
    }
  }

  dispose(): void {
    this.feed.dispose();
    clearTimeout(this.graphTimer);
    clearInterval(this.ticker);
    for (const s of this.subs) s.dispose();
    this.panel.dispose();
  }
}
