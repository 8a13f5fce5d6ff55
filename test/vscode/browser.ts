// Headless Debian Chromium through playwright-core, and the workbench page's console as text.
import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core';
import { CHROMIUM_PATH } from './paths';

/** Flags that keep a headless Chromium from reaching out (updates, sync, QUIC) on a closed network. */
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Launches headless Chromium with a fresh temporary profile (playwright's default). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS],
    timeout: 60_000,
  });
}

export interface WorkbenchPageOptions {
  /** Called with `window.codeAutomationExit(code)`: the extension tests finished. */
  onExit?: (code: number) => void;
  /** Each browser console line, with VS Code's `%c` styling removed. */
  onConsole?: (line: string, message: ConsoleMessage | undefined) => void;
  viewport?: { width: number; height: number } | undefined;
}

/** A page with `codeAutomationExit` exposed before anything loads, navigated to the workbench URL. */
export async function openWorkbenchPage(
  browser: Browser,
  url: string,
  options: WorkbenchPageOptions = {},
): Promise<Page> {
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1400, height: 900 } });
  const page = await context.newPage();
  const onExit = options.onExit;
  // The workbench looks this up when the test run ends; it must exist before its scripts run.
  await page.exposeFunction('codeAutomationExit', (code: unknown) => {
    onExit?.(typeof code === 'number' ? code : Number(code) || 0);
  });
  const onConsole = options.onConsole;
  if (onConsole) {
    // jsonValue() is async: a queue keeps the lines in the order the page logged them.
    let queue = Promise.resolve();
    page.on('console', (msg) => {
      const text = consoleText(msg);
      queue = queue.then(async () => onConsole(await text, msg));
    });
    page.on('pageerror', (err) => {
      queue = queue.then(() => onConsole(`[pageerror] ${err.message}`, undefined));
    });
  }
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
  return page;
}

const LEVEL = /^%c\s*(INFO|ERR|WARN|DEBUG|TRACE)$/;

/**
 * The text of a console message. VS Code logs `console.log('%c INFO', css, ...args)` where args
 * are what the extension host passed to console.log (mocha's spec reporter: a printf format and
 * its values), so the level prefix and CSS are dropped and the rest formatted like Node would.
 */
export async function consoleText(msg: ConsoleMessage): Promise<string> {
  const values = await Promise.all(msg.args().map((a) => a.jsonValue().catch(() => '[unserializable]')));
  if (values.length === 0) return msg.text();
  const first = values[0];
  const level = typeof first === 'string' ? LEVEL.exec(first) : null;
  if (level) {
    const text = formatConsole(values.slice(2));
    return level[1] === 'INFO' ? text : `${level[1]} ${text}`;
  }
  return formatConsole(values);
}

/** printf-style console formatting (`%s %d %i %f %o %O %j %c %%`), the remaining values joined by spaces. */
export function formatConsole(values: readonly unknown[]): string {
  const show = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v)));
  if (values.length === 0) return '';
  const [format, ...rest] = values;
  if (typeof format !== 'string') return values.map(show).join(' ');
  let i = 0;
  const head = format.replace(/%([sdifoOjc%])/g, (whole, spec: string) => {
    if (spec === '%') return '%';
    if (i >= rest.length) return whole;
    const v = rest[i++];
    if (spec === 'c') return '';
    if (spec === 'd' || spec === 'i') return String(Math.trunc(Number(v)));
    if (spec === 'f') return String(Number(v));
    return show(v);
  });
  return [head, ...rest.slice(i).map(show)].join(' ');
}
