// Drives a real workbench for end-to-end tests: code-server with the extension loaded in
// development mode, a headless Chromium page on it, screenshots into test-artifacts/screenshots.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { launchChromium, openWorkbenchPage } from '../browser';
import { startCodeServer, type CodeServer } from '../codeServer';
import { ARTIFACTS_DIR, PROJECT_ROOT } from '../paths';

export interface OpenWorkbenchOptions {
  /** The folder to open (use makeFixtureWorkspace() for a disposable one). */
  workspace: string;
  /** The extension to load in development mode; default: this project (built into out/). */
  extensionPath?: string;
  /** Keep workspace trust on, so the workbench treats the folder as untrusted until told. Default: off. */
  trust?: boolean;
  /** Merged over the quiet test settings. */
  settings?: Record<string, unknown>;
  viewport?: { width: number; height: number };
  /** Print the page's console lines (default: only when BRAID_E2E_CONSOLE=1). */
  echoConsole?: boolean;
  readyTimeoutMs?: number;
}

export interface Workbench {
  readonly page: Page;
  readonly browser: Browser;
  readonly server: CodeServer;
  readonly url: string;
  /** The console lines seen so far (VS Code's styling removed). */
  readonly console: readonly string[];
  /** Saves test-artifacts/screenshots/NAME.png and returns its path. */
  screenshot(name: string): Promise<string>;
  /** Opens the command palette (focus first, F1, retried) and returns its input box. */
  openCommandPalette(): Promise<Locator>;
  /** "Developer: Reload Window": a new extension host, and the workbench laid out again. */
  reload(): Promise<void>;
  close(): Promise<void>;
}

export const SCREENSHOT_DIR = join(ARTIFACTS_DIR, 'screenshots');
const QUICK_INPUT = '.quick-input-widget .quick-input-box input';
const QUICK_INPUT_ROW = '.quick-input-widget .quick-input-list .monaco-list-row';

/** Starts code-server and opens its workbench on WORKSPACE; resolves once the workbench is laid out. */
export async function openWorkbench(options: OpenWorkbenchOptions): Promise<Workbench> {
  const extensionPath = resolve(options.extensionPath ?? PROJECT_ROOT);
  const server = await startCodeServer({
    workspace: options.workspace,
    trust: options.trust ?? false,
    settings: options.settings,
  });
  let browser: Browser | undefined;
  const lines: string[] = [];
  const echo = options.echoConsole ?? process.env.BRAID_E2E_CONSOLE === '1';
  try {
    browser = await launchChromium();
    const url = server.workbenchUrl([['extensionDevelopmentPath', server.remoteUri(extensionPath)]]);
    const page = await openWorkbenchPage(browser, url, {
      viewport: options.viewport,
      onConsole: (line) => {
        lines.push(line);
        if (echo) process.stdout.write(`[workbench] ${line}\n`);
      },
    });
    await waitUntilReady(page, options.readyTimeoutMs ?? 60_000);
    const shot = async (name: string): Promise<string> => {
      mkdirSync(SCREENSHOT_DIR, { recursive: true });
      const file = join(SCREENSHOT_DIR, `${name.replace(/[^A-Za-z0-9._-]/g, '_')}.png`);
      await page.screenshot({ path: file });
      return file;
    };
    const b = browser;
    return {
      page,
      browser: b,
      server,
      url,
      console: lines,
      screenshot: shot,
      openCommandPalette: () => openCommandPalette(page),
      reload: async () => {
        // Through the workbench's own command, as a user reloads: it saves the window's state
        // (open editors and webview panels) before it goes; a bare page reload may not.
        const loaded = page.waitForEvent('load', { timeout: options.readyTimeoutMs ?? 60_000 });
        const input = await openCommandPalette(page);
        await input.fill('>Developer: Reload Window');
        await page
          .locator(QUICK_INPUT_ROW, { hasText: 'Developer: Reload Window' })
          .first()
          .waitFor({ state: 'visible', timeout: 15_000 });
        await page.keyboard.press('Enter');
        await loaded;
        await waitUntilReady(page, options.readyTimeoutMs ?? 60_000);
      },
      close: async () => {
        await b.close().catch(() => {});
        await server.stop();
      },
    };
  } catch (err) {
    await browser?.close().catch(() => {});
    const tail = server.logTail();
    await server.stop();
    throw new Error(`${(err as Error).message}\n--- last lines of code-server's log ---\n${tail}`, { cause: err });
  }
}

/** The workbench is usable once its parts are laid out and the remote connection is up. */
async function waitUntilReady(page: Page, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const left = (): number => Math.max(1_000, deadline - Date.now());
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: left() });
  await page.locator('.part.activitybar').waitFor({ state: 'visible', timeout: left() });
  await page.locator('.part.statusbar').waitFor({ state: 'visible', timeout: left() });
  // The explorer lists the folder's files only once the remote file system answers.
  await page.locator('.explorer-folders-view .monaco-list-row').first().waitFor({ state: 'visible', timeout: left() });
}

/**
 * F1 does nothing until the workbench has keyboard focus, and focus lands late after load:
 * click into the workbench, press F1, and retry until the quick input shows.
 */
async function openCommandPalette(page: Page, attempts = 10): Promise<Locator> {
  const input = page.locator(QUICK_INPUT);
  for (let i = 0; i < attempts; i++) {
    await page
      .locator(i % 2 === 0 ? '.part.editor' : '.explorer-folders-view')
      .first()
      .click({ timeout: 5_000 })
      .catch(() => {});
    await page.keyboard.press('F1');
    try {
      await input.waitFor({ state: 'visible', timeout: 1_500 });
      return input;
    } catch {
      await page.keyboard.press('Escape').catch(() => {});
    }
  }
  throw new Error(`the command palette did not open after ${attempts} tries of click + F1`);
}

/** For an e2e suite's afterEach: a failed test leaves a screenshot and the workbench's last console lines. */
export async function reportFailure(
  wb: Workbench | undefined,
  test: { state?: string | undefined; title: string } | undefined,
  prefix: string,
): Promise<void> {
  if (test?.state !== 'failed' || !wb) return;
  const shot = await wb.screenshot(`${prefix}-failed-${test.title}`).catch(() => undefined);
  process.stdout.write(
    `    screenshot: ${shot ?? '(none)'}\n    last workbench console lines:\n${wb.console
      .slice(-30)
      .map((l) => `      ${l}`)
      .join('\n')}\n`,
  );
}
