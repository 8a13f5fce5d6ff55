// The Braid graph page inside the workbench: a webview is an iframe on a `{uuid}.host` origin
// holding another iframe with our page, so the page is found by what it contains, not by path.
// Everything here reads the testability contract (data-step-id, data-status, data-action,
// data-log-for, body[data-graph-state]) and nothing else of the page's markup.
import type { Frame, Locator, Page } from 'playwright-core';

export interface GraphFrame {
  readonly frame: Frame;
  /** Current `data-status` of every node, by `data-step-id`. */
  statuses(): Promise<Record<string, string>>;
  node(stepId: string): Locator;
  button(action: string, stepId?: string): Locator;
  /** The log pane, when it shows this step's log. */
  logPane(stepId: string): Locator;
  /**
   * Every status each node has taken since the frame was found, in order, recorded in the page
   * by a MutationObserver: a step that runs for a few milliseconds is still seen running.
   */
  history(): Promise<Record<string, string[]>>;
  /** Tags the drawn diagram; `sameDiagram()` is true while that very SVG is still shown (no re-layout). */
  markDiagram(): Promise<void>;
  sameDiagram(): Promise<boolean>;
}

interface Recorder {
  __braidHistory?: Record<string, string[]>;
}

// A string, not a function: tsx compiles this file with keepNames, whose `__name(…)` wrappers
// around inner functions do not exist in the page.
const RECORDER = `(() => {
  const history = (window.__braidHistory = {});
  const note = (e) => {
    const id = e.getAttribute('data-step-id');
    const st = e.getAttribute('data-status');
    if (id === null || st === null || !e.matches('g.node')) return;
    const h = (history[id] ??= []);
    if (h.at(-1) !== st) h.push(st);
  };
  document.querySelectorAll('g.node[data-step-id]').forEach(note);
  new MutationObserver((records) => {
    for (const r of records) if (r.target instanceof Element) note(r.target);
  }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ['data-status', 'data-step-id'] });
})()`;

/** Polls until `check` returns a value that is not undefined/false, or throws naming `what`. */
export async function poll<T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  timeoutMs = 30_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      lastError = err; // a frame navigating away mid-evaluate; try again
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${(lastError as Error).message})` : ''}`,
      );
    }
    await new Promise((res) => setTimeout(res, everyMs));
  }
}

async function isGraphPage(frame: Frame): Promise<boolean> {
  try {
    return await frame.evaluate(() => document.querySelector('#app .toolbar') !== null);
  } catch {
    return false; // detached, or still loading
  }
}

/** Waits for the graph page's frame and for its diagram to be drawn. */
export async function findGraphFrame(page: Page, timeoutMs = 30_000): Promise<GraphFrame> {
  const frame = await poll(
    'the Braid graph webview to load',
    async () => {
      for (const f of page.frames()) if (f !== page.mainFrame() && (await isGraphPage(f))) return f;
      return undefined;
    },
    timeoutMs,
  );
  await frame.locator('body[data-graph-state="rendered"]').waitFor({ state: 'attached', timeout: timeoutMs });
  await frame.evaluate(RECORDER);
  return {
    frame,
    statuses: () =>
      frame.evaluate(() => {
        const out: Record<string, string> = {};
        for (const g of Array.from(document.querySelectorAll('[data-step-id][data-status]'))) {
          // Buttons carry data-step-id too, but no data-status; the step panel's meta has neither.
          out[g.getAttribute('data-step-id') ?? ''] = g.getAttribute('data-status') ?? '';
        }
        return out;
      }),
    node: (stepId) => frame.locator(`g.node[data-step-id="${stepId}"]`),
    button: (action, stepId) =>
      frame.locator(
        stepId === undefined
          ? `button[data-action="${action}"]`
          : `button[data-action="${action}"][data-step-id="${stepId}"]`,
      ),
    logPane: (stepId) => frame.locator(`[data-log-for="${stepId}"]`),
    history: () =>
      frame.evaluate(
        () => JSON.parse(JSON.stringify((window as Recorder).__braidHistory ?? {})) as Record<string, string[]>,
      ),
    markDiagram: () =>
      frame.evaluate(() => {
        document.querySelector('#graph svg')?.setAttribute('data-e2e-mark', '1');
      }),
    sameDiagram: () =>
      frame.evaluate(() => document.querySelector('#graph svg')?.getAttribute('data-e2e-mark') === '1'),
  };
}
