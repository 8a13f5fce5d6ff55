// The CLI's human view: one line per event when piped, a live line per running step on a TTY,
// and a summary table at the end.
import { formatDuration, formatUsd, stepTimeText } from '../core/format';
import type { RunRecord, StepRecord } from '../core/engine/records/runRecord';
import { foldStep, startedAttempt } from '../core/engine/records/stepFold';
import { timeFactsOf } from '../core/engine/records/timeFacts';
import type { RunResult } from '../core/engine/scheduling/schedulerOptions';
import type { EngineEvent } from '../core/engine/types';
import { endSentence, shownStatus } from '../core/status';
import { costText, unknownCostText } from '../core/cost/costText';
import type { CostSource } from '../core/cost/agentUsage';

const SPIN = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const COLORS: Record<string, string> = {
  succeeded: '32',
  failed: '31',
  conflict: '31',
  canceled: '33',
  skipped: '90',
  waiting: '36',
  running: '34',
  review: '36',
  interrupted: '33',
};

export class HumanView {
  private readonly live = new Map<
    string,
    { attempt: number; since: number; last: string; costUsd?: number; costSource?: CostSource }
  >();
  /** Each step's record folded from the events as run.json's is: it says when an attempt starts. */
  private readonly records = new Map<string, StepRecord>();
  private drawn = 0;
  private timer: NodeJS.Timeout | undefined;
  private frame = 0;

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly fancy: boolean,
  ) {
    if (fancy) this.timer = setInterval(() => this.redraw(), 100);
  }

  private color(status: string, text: string): string {
    return this.fancy && COLORS[status] ? `\x1b[${COLORS[status]}m${text}\x1b[0m` : text;
  }

  private print(line: string): void {
    this.clear();
    if (this.fancy) {
      this.out.write(line + '\n');
      return this.redraw();
    }
    // Lines printed in one turn of the loop (steps ending and starting together) go in one write:
    // a write to a pipe wakes its reader, and with a thousand short steps that was a third of the
    // engine's writes. (A file or pipe stdout is written synchronously: nothing of it waits past
    // the turn.)
    if (this.pending === '') process.nextTick(() => this.flushLines());
    this.pending += line + '\n';
  }

  private pending = '';
  private flushLines(): void {
    const text = this.pending;
    this.pending = '';
    if (text !== '') this.out.write(text);
  }

  on(e: EngineEvent): void {
    if (e.type === 'output') {
      const l = this.live.get(e.id);
      const last = e.text.trimEnd().split('\n').pop();
      if (l && last) l.last = last;
      return;
    }
    if (e.type === 'agent') {
      const l = this.live.get(e.id);
      if (!l) return;
      if (e.activity) l.last = e.activity;
      if (e.costUsd !== undefined) {
        l.costUsd = e.costUsd;
        if (e.costSource !== undefined) l.costSource = e.costSource;
      }
      return;
    }
    if (e.type === 'budget') {
      const who = e.pool === undefined ? 'the run' : `pool ${e.pool}`;
      const spent = `${formatUsd(e.spentUsd)} of its ${formatUsd(e.budgetUsd)} budget`;
      if (e.decision === undefined)
        return this.print(
          `${this.color('waiting', 'budget')}   ${who} has spent ${spent}; no new step ${e.pool === undefined ? '' : 'of the pool '}starts`,
        );
      if (e.decision !== 'stop') return this.print('budget    continuing');
      // The CLI cannot ask: it says how to go on with a higher budget.
      const raise =
        e.pool === undefined
          ? `braid retry ${e.run} --max-cost-usd ${e.budgetUsd.toFixed(2)} (another ${formatUsd(e.budgetUsd)} for what remains)`
          : `raise pools.${e.pool}.max-cost-usd in the plan, then braid retry ${e.run}`;
      return this.print(
        `${this.color('canceled', 'budget')}   stopping ${who}: its new steps are canceled · to go on: ${raise}`,
      );
    }
    if (e.type === 'lock')
      return this.print(`${this.color('waiting', 'waiting')} ${e.id} for ${e.waitingFor}: ${e.paths.join(' ↔ ')}`);
    if (e.type === 'run') {
      if (e.status === 'started') this.print(`braid: run ${e.run} · ${e.plan} · ${e.steps} steps`);
      return;
    }
    const prev = this.records.get(e.id);
    const next = foldStep(prev, e);
    this.records.set(e.id, next);
    if (e.status === 'running') {
      // The running attempt reported again (its merge-back waited for a lock, then got it): the `lock` line said so.
      if (!startedAttempt(prev, next) && this.live.has(e.id)) return;
      this.live.set(e.id, { attempt: e.attempt, since: Date.now(), last: '' });
      if (!this.fancy) this.print(`running   ${e.id}${e.attempt > 1 ? ` (attempt ${e.attempt})` : ''}`);
      return;
    }
    const why = endSentence(e);
    if (e.status === 'waiting' && why === undefined) return;
    this.live.delete(e.id);
    if (e.status === 'waiting' && e.reason === 'pick') {
      return this.print(
        `${this.color('waiting', 'pick     ')} ${e.id} · ${e.message ?? why} · braid diff ${e.run} ${e.id} --alternative N`,
      );
    }
    if (e.status === 'review') {
      return this.print(
        `${this.color('waiting', 'review   ')} ${e.id} · its change waits: braid diff ${e.run} ${e.id} · braid approve|reject ${e.run} ${e.id}`,
      );
    }
    this.print(`${this.color(e.status, e.status.padEnd(9))} ${e.id}${why !== undefined ? ` · ${why}` : ''}`);
  }

  private clear(): void {
    if (!this.fancy || this.drawn === 0) return;
    this.out.write(`\x1b[${this.drawn}A\x1b[J`);
    this.drawn = 0;
  }

  private redraw(): void {
    if (!this.fancy) return;
    this.clear();
    this.frame++;
    const width = this.out.columns || 100;
    for (const [id, l] of this.live) {
      const cost = l.costUsd !== undefined ? ` ${costText(l.costUsd, l.costSource)}` : '';
      const line = `${SPIN[this.frame % SPIN.length]} ${id} ${formatDuration(Date.now() - l.since)}${cost} ${l.last}`;
      this.out.write(line.slice(0, width - 1) + '\n');
      this.drawn++;
    }
  }

  /** The table at the end, from the run's record: time is time spent running, wall time apart where it is longer. */
  summary(result: RunResult, record: RunRecord): void {
    if (this.timer) clearInterval(this.timer);
    this.flushLines();
    this.clear();
    const order = Object.keys(record.steps);
    const now = Date.now();
    // An agent that reported usage but no cost (codex, gemini) says so: "$0" would be a claim.
    const agentRan = (s: StepRecord) =>
      s.sessionId !== undefined || s.attempts.some((a) => a.inputTokens !== undefined);
    const costs = order.some((id) => {
      const s = record.steps[id]!;
      return s.costUsd !== undefined || agentRan(s);
    });
    const times = new Map(order.map((id) => [id, stepTimeText(timeFactsOf(record.steps[id]!), now)] as const));
    const walls = [...times.values()].some((t) => t?.wall !== undefined);
    const rows = order.map((id) => {
      const s = record.steps[id]!;
      const t = times.get(id);
      const unknown = s.attempts.map((a) => a.costUnknown).find((u) => u !== undefined);
      const cost = costs
        ? [
            s.costUsd !== undefined
              ? costText(s.costUsd, s.costSource)
              : unknown !== undefined
                ? unknownCostText(unknown)
                : agentRan(s)
                  ? 'not reported'
                  : '',
          ]
        : [];
      return [
        id,
        shownStatus(s),
        s.reused ? '-' : String(s.attempts.length),
        t?.time ?? '',
        ...(walls ? [t?.wall?.replace(/^wall /, '') ?? ''] : []),
        ...cost,
        endSentence(s) ?? '',
      ];
    });
    const head = ['step', 'status', 'tries', 'time', ...(walls ? ['wall'] : []), ...(costs ? ['cost'] : []), 'note'];
    const note = head.length - 1;
    const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const fmt = (r: string[]) =>
      r
        .map((c, i) => (i === note ? c : c.padEnd(w[i]!)))
        .join('  ')
        .trimEnd();
    this.out.write('\n' + fmt(head) + '\n');
    for (const r of rows) this.out.write(this.color(r[1]!, fmt(r)) + '\n');
    const total = result.costUsd !== undefined ? ` · ${costText(result.costUsd, result.costSource)}` : '';
    const why = result.reason === 'budget' ? ' · stopped at its budget' : '';
    this.out.write(`\nrun ${result.status}${why}${total}\n`);
  }
}
