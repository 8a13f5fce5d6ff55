// The graph panel's page. It speaks only the messages of src/protocol/webview.ts: posts `ready`
// once listening, then draws whatever `graph`, `status`, `log`, `logPage` and `restore` bring,
// and posts the user's gestures (`select`, `action`, `openLog`, `requestLogPage`).
import type {
  GraphMessage,
  HostMessage,
  LogMessage,
  StatusMessage,
  StepStatus,
  WebviewAction,
  WebviewMessage,
  WebviewState,
} from '../src/protocol/webview';
import { parseHostMessage, webviewStateSchema } from '../src/protocol/webview';
import { alternativeActions, isRunActive, runActions, stepActions } from './actions';
import { el } from './dom';
import { GraphView } from './graph';
import { LogModel } from './logModel';
import { LogPane } from './logPane';
import { recordLongTasks } from './longTasks';
import { milestone } from './milestones';
import { ProblemsView } from './problems';
import { RunBar } from './runBar';
import { findSteps, nextMatch } from './search';
import { ActionRow, Toolbar } from './toolbar';
import { vscodeApi } from './vscodeApi';

/** Logs kept at once (each bounded by its ring buffer); the least recently shown go first. */
const MAX_LOGS = 6;

class App {
  private readonly api = vscodeApi();
  private readonly graph: GraphView;
  private readonly toolbar: Toolbar;
  private readonly stepRow: ActionRow;
  private readonly logPane: LogPane;
  private readonly stepTitle = el('h2', { class: 'step-title' });
  private readonly problems = new ProblemsView((index) => this.post({ type: 'openProblem', index }));
  /** Graph and step pane; the pane shows only while a step is selected, so the graph has the room otherwise. */
  private readonly split: HTMLElement;
  private readonly stepMeta = el('div', { class: 'step-meta' });
  private readonly hint = el('p', { class: 'hint' }, 'Select a step to see its log.');
  private runId: string | undefined;
  private hasGraph = false;
  private selected: string | undefined;
  private restoreSelection: string | undefined;
  private query = '';
  private lastMatch: string | undefined;
  private readonly logs = new Map<string, LogModel>();
  private readonly details = new Map<string, { attempt?: number; detail?: string; pick?: boolean }>();
  private readonly runBar = new RunBar((on) => this.setFailedOnly(on));
  /** Matrix groups the user expanded (the host draws the others as one node each). */
  private expanded = new Set<string>();
  private failedOnly = false;

  constructor(root: HTMLElement) {
    const act = (action: WebviewAction, stepId: string | undefined): void =>
      this.post({
        type: 'action',
        action,
        ...(stepId !== undefined ? { stepId } : {}),
        ...(this.runId !== undefined ? { runId: this.runId } : {}),
      });
    this.toolbar = new Toolbar({
      onAction: act,
      onSearch: (q) => this.search(q),
      onSearchNext: () => this.searchNext(),
      onFit: () => this.graph.fit(),
      onZoom: (f) => this.graph.panZoom.zoom(f),
    });
    this.stepRow = new ActionRow('step-actions', 'Step', act);
    this.logPane = new LogPane({
      onRequestPage: (m, beforeLine) =>
        this.post({ type: 'requestLogPage', runId: m.runId, stepId: m.stepId, beforeLine }),
      onOpenInEditor: () => {
        if (this.selected !== undefined && this.runId !== undefined)
          this.post({ type: 'openLog', stepId: this.selected, runId: this.runId });
      },
      onFollowChange: () => this.persist(),
    });
    const viewport = el('div', { class: 'graph-viewport', 'aria-label': 'Plan graph' });
    const side = el(
      'aside',
      { class: 'side' },
      this.hint,
      this.stepTitle,
      this.stepMeta,
      this.stepRow.root,
      this.logPane.root,
    );
    root.append(
      this.toolbar.root,
      this.runBar.root,
      this.problems.root,
      (this.split = el('div', { class: 'split' }, viewport, side)),
    );
    this.graph = new GraphView(viewport, {
      onSelect: (id) => this.select(id),
      onClear: () => this.clearSelection(),
      onRendered: () => {
        if (this.query !== '') this.search(this.query);
      },
      onToggleGroup: (group, expand) => {
        if (expand) this.expanded.add(group);
        else this.expanded.delete(group);
        this.post({ type: 'expandGroups', groups: [...this.expanded] });
        this.persist();
      },
    });
    this.applyState(webviewStateSchema.safeParse(this.api.getState()).data ?? {});
    this.showStep();
  }

  /** Starts listening, then tells the host it may post. */
  start(): void {
    window.addEventListener('message', (e: MessageEvent) => {
      // When the message reached the page, before it is parsed (the parse is the page's own time).
      if ((e.data as { type?: unknown } | null)?.type === 'graph') milestone('graph', e.timeStamp);
      const msg = parseHostMessage(e.data);
      if (msg) this.receive(msg);
      else console.warn('braid: dropped an unknown message from the host', e.data);
    });
    this.post({ type: 'ready' });
    milestone('ready');
  }

  private post(msg: WebviewMessage): void {
    this.api.postMessage(msg);
  }

  private receive(msg: HostMessage): void {
    switch (msg.type) {
      case 'graph':
        return this.onGraph(msg);
      case 'problems': {
        this.problems.show(msg);
        this.split.hidden = !this.hasGraph;
        document.body.setAttribute('data-graph-state', 'problems');
        return;
      }
      case 'status':
        return this.onStatus(msg);
      case 'log':
        return this.onLog(msg);
      case 'logPage': {
        const m = this.logs.get(logKey(msg.runId, msg.stepId));
        if (m) this.logPane.changed(m, m.applyPage(msg.startLine, msg.beforeLine, msg.lines));
        return;
      }
      case 'restore': {
        this.applyState(msg.state);
        if (this.hasGraph) this.applySelection();
        return;
      }
    }
  }

  private onGraph(msg: GraphMessage): void {
    const runChanged = msg.runId !== this.runId || !this.hasGraph;
    if (msg.runId !== this.runId) {
      for (const [k, m] of this.logs) if (m.runId !== msg.runId) this.logs.delete(k);
      this.details.clear();
    }
    this.runId = msg.runId;
    this.hasGraph = true;
    this.problems.hide();
    this.split.hidden = false;
    this.toolbar.setPlanName(msg.planName);
    this.runBar.setRun(msg.run);
    this.graph.show(msg);
    if (this.selected !== undefined && !this.graph.node(this.selected)) this.selected = undefined;
    if (this.restoreSelection !== undefined) this.applySelection();
    else if (runChanged && this.selected !== undefined) this.select(this.selected);
    this.refresh();
  }

  private onStatus(msg: StatusMessage): void {
    if (msg.runId !== undefined && this.runId !== undefined && msg.runId !== this.runId) return;
    if (msg.run) this.runBar.setRun(msg.run);
    for (const u of msg.updates) {
      const before = this.graph.node(u.stepId)?.status;
      if (!this.graph.setStatus(u.stepId, u.status, u.time, u.won)) continue;
      // A new status says everything anew; the same status (a time tick, agent progress) adds to it.
      const kept = before === u.status ? this.details.get(u.stepId) : undefined;
      this.details.set(u.stepId, {
        ...kept,
        ...(u.attempt !== undefined ? { attempt: u.attempt } : {}),
        ...(u.detail !== undefined ? { detail: u.detail } : {}),
        ...(u.pick !== undefined ? { pick: u.pick } : {}),
      });
    }
    this.refresh();
  }

  private onLog(msg: LogMessage): void {
    const key = logKey(msg.runId, msg.stepId);
    let m = this.logs.get(key);
    if (!m || msg.reset) {
      m = new LogModel(msg.runId, msg.stepId);
      this.logs.delete(key);
      this.logs.set(key, m);
      this.evictLogs();
      m.reset(msg.lines, msg.startLine ?? 0, msg.attemptBoundary, msg.stderr);
    } else {
      m.append(msg.lines, msg.startLine, msg.attemptBoundary, msg.stderr);
    }
    if (msg.stepId === this.selected && msg.runId === this.runId) this.showStep();
    this.logPane.changed(m);
  }

  private evictLogs(): void {
    for (const [k, m] of this.logs) {
      if (this.logs.size <= MAX_LOGS) break;
      if (m.stepId !== this.selected) this.logs.delete(k);
    }
  }

  private select(stepId: string): void {
    this.selected = stepId;
    this.restoreSelection = undefined;
    // Most recently shown last, so eviction drops the others first.
    if (this.runId !== undefined) {
      const key = logKey(this.runId, stepId);
      const m = this.logs.get(key);
      if (m) {
        this.logs.delete(key);
        this.logs.set(key, m);
      }
    }
    this.graph.select(stepId);
    this.post({ type: 'select', stepId });
    this.persist();
    this.refresh();
  }

  private clearSelection(): void {
    if (this.selected === undefined) return;
    this.selected = undefined;
    this.graph.select(undefined);
    this.persist();
    this.refresh();
  }

  private applySelection(): void {
    const id = this.restoreSelection;
    if (id === undefined || !this.graph.node(id)) return;
    this.select(id);
  }

  private applyState(s: WebviewState): void {
    if (s.selectedStepId !== undefined) this.restoreSelection = s.selectedStepId;
    if (s.follow !== undefined) this.logPane.setFollow(s.follow);
    if (s.expandedGroups !== undefined) this.expanded = new Set(s.expandedGroups);
    if (s.failedOnly !== undefined) this.setFailedOnly(s.failedOnly, false);
    if (s.query !== undefined && s.query !== this.query) {
      this.toolbar.search.value = s.query;
      this.search(s.query);
    }
  }

  private persist(): void {
    const state: WebviewState = {
      ...(this.selected !== undefined ? { selectedStepId: this.selected } : {}),
      ...(this.runId !== undefined ? { runId: this.runId } : {}),
      follow: this.logPane.follow,
      ...(this.query !== '' ? { query: this.query } : {}),
      ...(this.expanded.size > 0 ? { expandedGroups: [...this.expanded] } : {}),
      ...(this.failedOnly ? { failedOnly: true } : {}),
    };
    this.api.setState(state);
  }

  private search(query: string): void {
    this.query = query;
    const matches = findSteps(this.graph.nodes, query);
    this.graph.highlight(new Set(matches));
    this.toolbar.setMatchCount(query, matches.length);
    this.persist();
  }

  private searchNext(): void {
    const next = nextMatch(findSteps(this.graph.nodes, this.query), this.lastMatch);
    if (next === undefined) return;
    this.lastMatch = next;
    this.select(next);
    this.graph.reveal(next);
  }

  /** Failed only: the steps that did not fail are dimmed, so the failures stand out wherever they are. */
  private setFailedOnly(on: boolean, save = true): void {
    this.failedOnly = on;
    this.runBar.setFailedOnly(on);
    this.split.classList.toggle('failed-only', on);
    if (save) this.persist();
  }

  /** Buttons and the step panel, after anything that can change which apply. */
  /** The steps' statuses: a best-of step's alternatives are the step's, not steps of the run. */
  private stepStatuses(): StepStatus[] {
    return this.graph.nodes.filter((n) => n.alternative === undefined).map((n) => n.status);
  }

  private refresh(): void {
    const statuses = this.stepStatuses();
    this.runBar.setCounts(statuses);
    this.toolbar.runActions.set(runActions(statuses, this.runId !== undefined), undefined);
    this.showStep(isRunActive(statuses));
  }

  private showStep(runActive = isRunActive(this.stepStatuses())): void {
    const node = this.selected !== undefined ? this.graph.node(this.selected) : undefined;
    this.split.classList.toggle('has-selection', node !== undefined);
    this.hint.hidden = node !== undefined;
    this.stepTitle.hidden = node === undefined;
    this.stepMeta.hidden = node === undefined;
    if (!node) {
      this.stepRow.set([], undefined);
      this.logPane.show(undefined, undefined, '', false);
      return;
    }
    const d = this.details.get(node.stepId);
    this.stepTitle.textContent = node.name;
    this.stepMeta.setAttribute('data-status', node.status);
    this.stepMeta.textContent = [
      node.agent,
      node.status,
      d?.attempt !== undefined && d.attempt > 1 ? `attempt ${d.attempt}` : undefined,
      d?.detail,
    ]
      .filter((s) => s !== undefined && s !== '')
      .join(' · ');
    // An alternative: its change and the pick; a best-of step waiting for the pick offers it first.
    const actions =
      node.alternative !== undefined
        ? alternativeActions(node.status, d?.pick === true)
        : [...(d?.pick === true ? ['pick' as const] : []), ...stepActions(node.status, runActive)];
    this.stepRow.set(actions, node.stepId);
    const model = this.runId !== undefined ? this.logs.get(logKey(this.runId, node.stepId)) : undefined;
    this.logPane.show(
      node.stepId,
      model,
      this.runId !== undefined ? `Log of ${node.stepId}` : 'No run yet',
      this.runId !== undefined,
    );
  }
}

const logKey = (runId: string, stepId: string): string => `${runId}\u0000${stepId}`;

milestone('nav', 0);
milestone('script');
recordLongTasks();
const root = document.getElementById('app') ?? document.body;
new App(root).start();
