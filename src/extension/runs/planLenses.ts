// Lenses on plan files: "Run plan · Show graph · Validate" above the plan, "Run step · Run from
// here" above each step and, once it has run, its last status and duration with "Retry · Log"
// ("Review changes", and "Approve · Reject" while its change waits for review).
// They are computed from the editor's text, so they follow edits as the user types.
import * as vscode from 'vscode';
import { groupCounts, groupCountsText } from '../../core/plan/groupCounts';
import type { GraphStep } from '../../core/plan/types';
import { asCommand, Command } from '../common/commandIds';
import { toRange } from '../plans/diagnostics';
import type { Plans } from '../plans/plans';
import type { RunsModel } from './runsModel';
import { isActive, type StepView } from './runView';
import { RETRYABLE } from '../../core/status';
import { formatDuration, runningMs, stepTimeText } from '../../core/format';
import { costText } from '../../core/cost/costText';
import { STATUS_LABEL } from '../common/statusText';
import { bestOfText } from './bestOfText';
import { pickable } from './pickText';

/**
 * Past this many step keys a plan gets its lenses above the plan only: VS Code lays out a view
 * zone for every lens line of the file, and at 5,000 steps that held the workbench for seconds
 * when the plan was opened (and every editor group opened beside it: the graph panel's, #35).
 */
export const MAX_STEP_LENSES = 1000;

/** What *Run step* does with the needs, and where the other way is. */
const RUN_STEP_TIP =
  'Run this step and what it needs; a need that already succeeded, defined as it is now, is reused. "Braid: Run Step Fresh" runs the needs again too.';

export class PlanLenses implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;
  private readonly sub: vscode.Disposable;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private shown = '';

  constructor(
    private readonly plans: Plans,
    private readonly runs: RunsModel,
  ) {
    // Lenses show statuses, not output: refresh when a status changes, at most a few times a second.
    this.sub = runs.onDidChange(() => {
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        const now = this.signature();
        if (now !== this.shown) {
          this.shown = now;
          this.changed.fire();
        }
      }, 200);
    });
  }

  private signature(): string {
    // Whole words: first letters collide (succeeded and skipped, canceled and conflict).
    // A best-of step's alternatives change its lens while the step stays `running`.
    return this.runs
      .runs()
      .map(
        (r) =>
          `${r.id}:${r.status}:${[...r.steps.values()].map((s) => (s.alternatives ? `${s.status}[${s.alternatives.map((a) => a.status).join(',')}]${s.winner ?? ''}` : s.status)).join(',')}`,
      )
      .join('|');
  }

  async provideCodeLenses(doc: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    const { graph, diagnostics } = await this.plans.compileDocument(doc);
    const top = new vscode.Range(0, 0, 0, 0);
    const errors = diagnostics.filter((d) => d.severity === 'error').length;
    if (!graph) {
      return [
        new vscode.CodeLens(
          top,
          asCommand(Command.validatePlan, `$(error) ${errors} problem${errors === 1 ? '' : 's'} · Validate`, doc.uri),
        ),
      ];
    }
    const lenses = [
      new vscode.CodeLens(top, asCommand(Command.runPlan, '$(run-all) Run plan', doc.uri)),
      new vscode.CodeLens(top, asCommand(Command.showGraph, '$(type-hierarchy) Show graph', doc.uri)),
      new vscode.CodeLens(top, asCommand(Command.validatePlan, '$(check) Validate', doc.uri)),
    ];
    const last = this.runs.latestOf(doc.uri.fsPath);
    // The last run's total, live while it runs (est.: estimated from tokens and prices).
    if (last?.costUsd !== undefined)
      lenses.push(
        new vscode.CodeLens(
          top,
          asCommand(
            Command.showGraph,
            `$(credit-card) ${isActive(last) ? 'spent so far' : 'last run spent'} ${costText(last.costUsd, last.costSource)}`,
            doc.uri,
          ),
        ),
      );
    // A matrix step is one key in the file and several steps in the graph: one set of lenses for it.
    const bySource = new Map<number, GraphStep[]>();
    for (const id of graph.order) {
      const s = graph.steps.get(id)!;
      const list = bySource.get(s.range.start.line) ?? [];
      list.push(s);
      bySource.set(s.range.start.line, list);
    }
    if (bySource.size > MAX_STEP_LENSES) {
      lenses.push(
        new vscode.CodeLens(top, {
          title: `${bySource.size.toLocaleString('en')} steps: step lenses off past ${MAX_STEP_LENSES.toLocaleString('en')}`,
          tooltip: 'Run, retry and logs of each step: the graph and the Runs view',
          command: '',
        }),
      );
      return lenses;
    }
    for (const group of bySource.values()) {
      const first = group[0]!;
      const key = first.matrix?.group ?? first.id;
      const range = toRange(first.range);
      lenses.push(
        new vscode.CodeLens(range, {
          ...asCommand(Command.runStep, '$(play) Run step', doc.uri, key),
          tooltip: RUN_STEP_TIP,
        }),
        new vscode.CodeLens(range, asCommand(Command.runFrom, 'Run from here', doc.uri, key)),
      );
      const seen = last
        ? group.map((s) => last.steps.get(s.id)).filter((v): v is StepView => v !== undefined && v.status !== 'pending')
        : [];
      if (!last || seen.length === 0) continue;
      if (first.matrix) {
        lenses.push(
          ...matrixLenses(
            range,
            last.id,
            group.map((s) => last.steps.get(s.id)).filter((v) => v !== undefined),
          ),
        );
        continue;
      }
      const worst = seen.find((v) => v.status !== 'succeeded') ?? seen[0]!;
      // Time spent running; the wall time, when waits made it longer, in the lens's tooltip.
      const times = stepTimeText(worst, Date.now());
      const dur =
        (times ? ` ${times.time}` : '') +
        (worst.reused ? ' (reused)' : '') +
        (worst.costUsd !== undefined ? ` · ${costText(worst.costUsd, worst.costSource)}` : '');
      // A best-of step: the winner (or the race so far) in place of the bare status.
      const race = bestOfText(worst);
      // An attempt answering a conflict (`on-conflict`): what it does, live.
      const resolving =
        worst.status === 'running' && worst.reason === 'conflict'
          ? ` · ${worst.message ?? 'resolving its conflict'}`
          : '';
      const label =
        race === undefined
          ? `${STATUS_LABEL[worst.status]}${resolving}${dur}`
          : worst.status === 'succeeded' && worst.winner !== undefined
            ? `✓ ${race}${dur}`
            : // Waiting for the pick: the race's line says what it waits for.
              worst.status === 'waiting' && worst.reason === 'pick'
              ? `⏳ ${race}${dur}`
              : `${STATUS_LABEL[worst.status]} · ${race}${dur}`;
      const status = asCommand(Command.showLog, label, last.id, worst.id);
      const tip = [times?.wall, worst.reused ? `reused from run ${worst.reused.run}` : undefined].filter(
        (t) => t !== undefined,
      );
      lenses.push(new vscode.CodeLens(range, tip.length > 0 ? { ...status, tooltip: tip.join(' · ') } : status));
      if (worst.alternatives?.some((a) => pickable(worst, a))) {
        lenses.push(
          new vscode.CodeLens(range, asCommand(Command.pickAlternative, 'Pick alternative', last.id, worst.id)),
        );
      }
      if (worst.status === 'conflict')
        lenses.push(
          new vscode.CodeLens(range, asCommand(Command.resolveWithAgent, 'Resolve with agent', last.id, worst.id)),
        );
      if (worst.status === 'review') {
        lenses.push(
          new vscode.CodeLens(range, asCommand(Command.reviewChanges, 'Review changes', last.id, worst.id)),
          new vscode.CodeLens(range, asCommand(Command.approveStep, 'Approve', last.id, worst.id)),
          new vscode.CodeLens(range, asCommand(Command.rejectStep, 'Reject', last.id, worst.id)),
        );
      } else if (RETRYABLE.has(worst.status)) {
        lenses.push(new vscode.CodeLens(range, asCommand(Command.retryStep, 'Retry', last.id, worst.id)));
      }
      // Only a worktree step's change is recorded.
      if ((worst.status === 'succeeded' || worst.status === 'conflict') && first.isolation === 'worktree') {
        lenses.push(new vscode.CodeLens(range, asCommand(Command.reviewChanges, 'Review changes', last.id, worst.id)));
      }
      lenses.push(new vscode.CodeLens(range, asCommand(Command.showLog, 'Log', last.id, worst.id)));
    }
    return lenses;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.sub.dispose();
    this.changed.dispose();
  }
}

/**
 * A matrix step's lenses sum its instances up: "9 ✓ · 1 ✗ · slowest 2.1s" (opening the slowest
 * instance's log), Retry when one instance failed, and *Log*, which asks which instance.
 */
function matrixLenses(range: vscode.Range, runId: string, instances: readonly StepView[]): vscode.CodeLens[] {
  const counts = groupCountsText(groupCounts(instances.map((v) => v.status)), true);
  const now = Date.now();
  const timed = instances
    .map((v) => ({ v, ms: runningMs(v, now) }))
    .filter((t): t is { v: StepView; ms: number } => t.ms !== undefined);
  const slowestTimed = timed.reduce<{ v: StepView; ms: number } | undefined>(
    (a, t) => (a === undefined || t.ms > a.ms ? t : a),
    undefined,
  );
  const slowest = slowestTimed?.v;
  const failed = instances.filter(
    (v) => v.status === 'failed' || v.status === 'conflict' || v.status === 'interrupted' || v.status === 'canceled',
  );
  const out = [
    new vscode.CodeLens(
      range,
      slowest
        ? asCommand(Command.showLog, `${counts} · slowest ${formatDuration(slowestTimed.ms)}`, runId, slowest.id)
        : asCommand(
            Command.showLog,
            counts,
            runId,
            undefined,
            instances.map((v) => v.id),
          ),
    ),
  ];
  if (failed.length === 1)
    out.push(new vscode.CodeLens(range, asCommand(Command.retryStep, 'Retry', runId, failed[0]!.id)));
  out.push(
    new vscode.CodeLens(
      range,
      asCommand(
        Command.showLog,
        'Log',
        runId,
        undefined,
        instances.map((v) => v.id),
      ),
    ),
  );
  return out;
}
