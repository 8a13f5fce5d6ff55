// The bar under the toolbar: which run the graph shows (id, start, status, wall time), marked when
// the plan has a newer one; the steps' counts; the "failed only" filter; and a legend of the icons.
import { groupCounts, groupCountsText, type RunHeader, type StepStatus } from '../src/protocol/webview';
import { el } from './dom';
import { statusIcon } from './statusIcons';

/** The statuses the legend explains, in the order a run meets them. */
const LEGEND: readonly [StepStatus, string][] = [
  ['pending', 'pending'],
  ['waiting', 'waiting'],
  ['running', 'running'],
  ['succeeded', 'succeeded'],
  ['failed', 'failed'],
  ['conflict', 'merge conflict'],
  ['skipped', 'skipped (a need failed)'],
  ['canceled', 'canceled'],
  ['interrupted', 'interrupted'],
];

export class RunBar {
  readonly root: HTMLElement;
  private readonly summary = el('span', { class: 'run-summary' });
  private readonly older = el(
    'span',
    { class: 'run-older', title: 'The plan has a newer run than the one shown', hidden: true },
    'older run',
  );
  private readonly counts = el('span', { class: 'run-counts', 'aria-label': 'Step counts' });
  readonly failedOnly: HTMLButtonElement;

  constructor(onFailedOnly: (on: boolean) => void) {
    this.failedOnly = el(
      'button',
      {
        type: 'button',
        class: 'toggle',
        'data-view': 'failed-only',
        'aria-pressed': 'false',
        title: 'Show only the steps that failed',
      },
      'Failed only',
    );
    this.failedOnly.addEventListener('click', () =>
      onFailedOnly(this.failedOnly.getAttribute('aria-pressed') !== 'true'),
    );
    const legend = el(
      'details',
      { class: 'legend' },
      el('summary', {}, 'Legend'),
      el(
        'ul',
        {},
        ...LEGEND.map(([status, label]) => {
          const icon = el('span', { class: 'legend-icon', 'data-status': status });
          const svg = statusIcon(status);
          if (svg) icon.append(svg);
          return el('li', {}, icon, label);
        }),
      ),
    );
    this.root = el(
      'div',
      { class: 'run-bar' },
      this.summary,
      this.older,
      el('span', { class: 'spacer' }),
      this.counts,
      this.failedOnly,
      legend,
    );
    this.setRun(undefined);
  }

  setRun(run: RunHeader | undefined): void {
    if (!run) {
      this.summary.textContent = 'No run yet: the plan as it would run';
      this.summary.removeAttribute('data-status');
      this.older.hidden = true;
      return;
    }
    const started = new Date(run.startedAt);
    const when =
      started.toDateString() === new Date().toDateString() ? started.toLocaleTimeString() : started.toLocaleString();
    this.summary.textContent = `Run ${run.id} · started ${when} · ${run.status} · ${run.duration}${run.cost !== undefined ? ` · ${run.cost}` : ''}`;
    this.summary.setAttribute('data-status', run.status);
    this.older.hidden = !run.older;
  }

  setCounts(statuses: readonly StepStatus[]): void {
    const c = groupCounts(statuses);
    const text = groupCountsText(c);
    if (this.counts.textContent !== text) this.counts.textContent = text;
    this.failedOnly.disabled = c.failed === 0 && this.failedOnly.getAttribute('aria-pressed') !== 'true';
  }

  setFailedOnly(on: boolean): void {
    this.failedOnly.setAttribute('aria-pressed', String(on));
  }
}
