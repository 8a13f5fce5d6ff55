// The selected step's log beside the graph: only the lines in view are in the DOM (a fixed line
// height and a spacer make the scrollbar right), redrawn at most once a frame however fast
// batches arrive; follow keeps the newest line in view until the user scrolls up.
import { exactColors, parseAnsi, stripAnsi, styleClasses } from './ansi';
import { el } from './dom';
import type { LogLine, LogModel } from './logModel';
import { atBottom, bottomScrollTop, visibleWindow } from './virtualWindow';

export interface LogPaneOptions {
  readonly onRequestPage: (model: LogModel, beforeLine: number) => void;
  readonly onOpenInEditor: () => void;
  readonly onFollowChange: (follow: boolean) => void;
}

const FALLBACK_LINE_HEIGHT = 18;

export class LogPane {
  readonly root: HTMLElement;
  private readonly title: HTMLElement;
  private readonly detail: HTMLElement;
  private readonly followButton: HTMLButtonElement;
  private readonly openButton: HTMLButtonElement;
  private readonly scroller: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly rows: HTMLElement;
  private readonly empty: HTMLElement;
  private model: LogModel | undefined;
  private followOn = true;
  private lineHeight = 0;
  private frame = 0;
  private drawnKey = '';
  /** The scrollTop we set ourselves, so our own scroll is not read as the user pausing. */
  private ownScroll = -1;

  constructor(private readonly opts: LogPaneOptions) {
    this.title = el('span', { class: 'log-title' });
    this.detail = el('span', { class: 'log-detail' });
    this.followButton = el(
      'button',
      {
        type: 'button',
        class: 'log-follow',
        'data-log-control': 'follow',
        'aria-pressed': 'true',
        title: 'Keep the newest line in view',
      },
      'Follow',
    );
    this.openButton = el(
      'button',
      { type: 'button', 'data-log-control': 'open', title: 'Open this log in an editor' },
      'Open in editor',
    );
    this.rows = el('div', { class: 'log-rows' });
    this.spacer = el('div', { class: 'log-spacer' }, this.rows);
    this.scroller = el('div', { class: 'log-scroll', tabindex: 0, role: 'log', 'aria-live': 'off' }, this.spacer);
    this.empty = el('div', { class: 'log-empty' }, 'No output yet.');
    this.root = el(
      'section',
      { class: 'log-pane', 'aria-label': 'Step log', hidden: true },
      el(
        'header',
        { class: 'log-header' },
        this.title,
        this.detail,
        el('span', { class: 'spacer' }),
        this.followButton,
        this.openButton,
      ),
      this.empty,
      this.scroller,
    );
    this.followButton.addEventListener('click', () => this.setFollow(!this.followOn, true));
    this.openButton.addEventListener('click', () => this.opts.onOpenInEditor());
    this.scroller.addEventListener('scroll', () => this.onScroll(), { passive: true });
    new ResizeObserver(() => this.schedule()).observe(this.scroller);
  }

  get follow(): boolean {
    return this.followOn;
  }

  /** Shows a step's log (or none); `title` and `detail` head the pane. */
  show(stepId: string | undefined, model: LogModel | undefined, title: string, canOpen: boolean): void {
    if (stepId === undefined) {
      this.root.hidden = true;
      this.root.removeAttribute('data-log-for');
      this.model = undefined;
      return;
    }
    this.root.hidden = false;
    this.root.setAttribute('data-log-for', stepId);
    this.title.textContent = title;
    this.openButton.disabled = !canOpen;
    if (model !== this.model) {
      this.model = model;
      this.drawnKey = '';
      if (this.followOn) this.scrollToBottomSoon();
    }
    this.schedule();
  }

  setDetail(text: string): void {
    this.detail.textContent = text;
  }

  setFollow(on: boolean, byUser = false): void {
    this.followOn = on;
    this.followButton.setAttribute('aria-pressed', String(on));
    this.followButton.textContent = on ? 'Follow' : 'Paused';
    if (on && this.model?.detached) {
      const before = this.model.reattach();
      if (before !== undefined) this.opts.onRequestPage(this.model, before);
    }
    if (on) this.scrollToBottomSoon();
    if (byUser) this.opts.onFollowChange(on);
  }

  /** The model changed (new lines, a page): redraw on the next frame. `added` lines came in front. */
  changed(model: LogModel, addedInFront = 0): void {
    if (model !== this.model) return;
    if (addedInFront > 0 && !this.followOn) {
      // Keep the same lines under the reader's eyes when older ones arrive above them.
      this.setScroll(this.scroller.scrollTop + addedInFront * this.measure());
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.frame !== 0) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  private measure(): number {
    if (this.lineHeight > 0) return this.lineHeight;
    const probe = el('div', { class: 'log-line' }, 'M');
    this.rows.append(probe);
    const h = probe.getBoundingClientRect().height;
    probe.remove();
    if (h > 0) this.lineHeight = h;
    return h > 0 ? h : FALLBACK_LINE_HEIGHT;
  }

  private draw(): void {
    const m = this.model;
    const total = m?.buffer.size ?? 0;
    this.empty.hidden = total > 0 || (m?.hasOlder ?? false);
    this.scroller.hidden = !this.empty.hidden;
    if (!m) return;
    const lh = this.measure();
    const viewH = this.scroller.clientHeight;
    this.spacer.style.height = `${total * lh}px`;
    if (this.followOn) this.setScroll(bottomScrollTop(total, lh, viewH));
    const w = visibleWindow({ total, lineHeight: lh, scrollTop: this.scroller.scrollTop, viewportHeight: viewH });
    const from = m.buffer.start + w.first;
    const to = m.buffer.start + w.last;
    const key = `${from}:${to}`;
    this.rows.style.transform = `translateY(${w.offsetTop}px)`;
    // Lines are immutable once held, so the same absolute range draws the same rows.
    if (key !== this.drawnKey) {
      this.drawnKey = key;
      this.rows.replaceChildren(...m.buffer.slice(from, to).map((l, i) => renderLine(l, from + i)));
    }
    if (w.first === 0 && this.scroller.scrollTop < lh) this.requestOlder();
  }

  private onScroll(): void {
    const top = this.scroller.scrollTop;
    const own = Math.abs(top - this.ownScroll) < 1;
    this.ownScroll = -1;
    const m = this.model;
    if (!own && m) {
      const bottom = atBottom(top, m.buffer.size, this.measure(), this.scroller.clientHeight);
      if (this.followOn && !bottom) this.setFollow(false, true);
      else if (!this.followOn && bottom && !m.detached) this.setFollow(true, true);
    }
    this.schedule();
  }

  private requestOlder(): void {
    const m = this.model;
    const before = m?.olderPageRequest();
    if (m && before !== undefined) this.opts.onRequestPage(m, before);
  }

  private setScroll(top: number): void {
    if (Math.abs(this.scroller.scrollTop - top) < 1) return;
    this.ownScroll = top;
    this.scroller.scrollTop = top;
    // The browser may clamp: remember what it actually took.
    this.ownScroll = this.scroller.scrollTop;
  }

  private scrollToBottomSoon(): void {
    this.drawnKey = '';
    this.schedule();
  }
}

/** One line as spans: ANSI styles become classes (theme colours) or exact colours, text stays text. */
function renderLine(line: LogLine, n: number): HTMLElement {
  if (line.attempt !== undefined) {
    return el(
      'div',
      { class: 'log-line log-attempt', 'data-line': n, 'data-attempt': line.attempt, role: 'separator' },
      stripAnsi(line.text),
    );
  }
  // stderr is marked by a word in the gutter as well as a colour (CSS), so it reads without colour.
  const row = el('div', {
    class: line.stderr ? 'log-line log-stderr' : 'log-line',
    'data-line': n,
    'data-stream': line.stderr ? 'stderr' : undefined,
    title: line.stderr ? 'written to stderr' : undefined,
  });
  for (const seg of parseAnsi(line.text)) {
    const cls = styleClasses(seg.style);
    const colors = exactColors(seg.style);
    if (cls.length === 0 && colors.color === undefined && colors.background === undefined) {
      row.append(seg.text);
      continue;
    }
    const span = el('span', { class: cls.join(' ') || undefined }, seg.text);
    if (colors.color !== undefined) span.style.color = colors.color;
    if (colors.background !== undefined) span.style.backgroundColor = colors.background;
    row.append(span);
  }
  return row;
}
