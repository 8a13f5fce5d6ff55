// Which log lines to put in the DOM: only those in view plus a margin, each of a fixed height,
// inside a spacer as tall as all held lines, so a huge log costs a few dozen nodes. No DOM here.

export interface WindowInput {
  /** Lines held (the ring buffer's size). */
  readonly total: number;
  readonly lineHeight: number;
  readonly scrollTop: number;
  readonly viewportHeight: number;
  /** Extra lines rendered above and below the view, so fast scrolling shows no gaps. */
  readonly overscan?: number;
}

export interface VisibleWindow {
  /** First rendered line, as an index into the held lines. */
  readonly first: number;
  /** Just past the last rendered line. */
  readonly last: number;
  /** Where the first rendered line sits, in px from the top of the spacer. */
  readonly offsetTop: number;
  /** The spacer's height: every held line. */
  readonly totalHeight: number;
}

/** The lines to render for a scroll position; clamps a scroll past either end. */
export function visibleWindow(input: WindowInput): VisibleWindow {
  const { total, lineHeight, viewportHeight } = input;
  if (!(lineHeight > 0)) throw new Error(`visibleWindow: lineHeight must be positive, got ${lineHeight}`);
  const overscan = Math.max(0, Math.floor(input.overscan ?? 20));
  const totalHeight = total * lineHeight;
  const maxScroll = Math.max(0, totalHeight - Math.max(0, viewportHeight));
  const scrollTop = Math.min(Math.max(0, input.scrollTop), maxScroll);
  const inView = Math.ceil(Math.max(0, viewportHeight) / lineHeight) + 1;
  const first = Math.max(0, Math.floor(scrollTop / lineHeight) - overscan);
  const last = Math.min(total, Math.floor(scrollTop / lineHeight) + inView + overscan);
  return { first, last, offsetTop: first * lineHeight, totalHeight };
}

/** The scrollTop that shows the last line at the bottom of the view. */
export function bottomScrollTop(total: number, lineHeight: number, viewportHeight: number): number {
  return Math.max(0, total * lineHeight - viewportHeight);
}

/** Whether the view is (within half a line of) the bottom: scrolling there resumes following. */
export function atBottom(scrollTop: number, total: number, lineHeight: number, viewportHeight: number): boolean {
  return scrollTop >= bottomScrollTop(total, lineHeight, viewportHeight) - lineHeight / 2;
}
