// Stands in for the VS Code executable that @vscode/test-electron's runTests() launches:
// takes its `--extensionDevelopmentPath=… --extensionTestsPath=… WORKSPACE` arguments, runs them
// in code-server's extension host through a headless Chromium workbench, and exits with the
// code the test module reported. Launched through codeServerShim.sh (runTests needs a file).
//
// Environment: BRAID_TEST_TRUST=1 keeps workspace trust on (runTests always passes
// --disable-workspace-trust, so the flag alone cannot say it); BRAID_TEST_TIMEOUT_MS (default
// 10 min); BRAID_CODE_SERVER_LOG=1 echoes code-server's log.
import { mkdirSync, renameSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, openWorkbenchPage } from './browser';
import { startCodeServer, type CodeServer } from './codeServer';
import { ARTIFACTS_DIR } from './paths';
import { SCREENSHOT_MARKER } from './suite/screenshotMarker';

interface ShimArgs {
  developmentPaths: string[];
  testsPath: string | undefined;
  workspace: string | undefined;
  userDataDir: string | undefined;
  extensionsDir: string | undefined;
  ignored: string[];
}

/** Parses the VS Code command line that runTests() builds (only the parts code-server can honour). */
function parseShimArgs(argv: readonly string[]): ShimArgs {
  const out: ShimArgs = {
    developmentPaths: [],
    testsPath: undefined,
    workspace: undefined,
    userDataDir: undefined,
    extensionsDir: undefined,
    ignored: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith('--')) {
      out.workspace ??= resolve(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    const takesValue = ['extensionDevelopmentPath', 'extensionTestsPath', 'user-data-dir', 'extensions-dir'].includes(
      name,
    );
    const value = eq >= 0 ? arg.slice(eq + 1) : takesValue ? argv[++i] : undefined;
    if (takesValue && value === undefined) throw new Error(`${arg} needs a value`);
    if (name === 'extensionDevelopmentPath') out.developmentPaths.push(resolve(value as string));
    else if (name === 'extensionTestsPath') out.testsPath = resolve(value as string);
    else if (name === 'user-data-dir') out.userDataDir = resolve(value as string);
    else if (name === 'extensions-dir') out.extensionsDir = resolve(value as string);
    else out.ignored.push(arg);
  }
  return out;
}

async function main(): Promise<number> {
  const args = parseShimArgs(process.argv.slice(2));
  if (!args.testsPath) throw new Error('codeServerShim: --extensionTestsPath=… is required');
  if (!args.workspace) throw new Error('codeServerShim: a workspace folder argument is required');
  const timeoutMs = Number(process.env.BRAID_TEST_TIMEOUT_MS ?? 600_000);
  const trust = process.env.BRAID_TEST_TRUST === '1';
  const screenshotDir = join(ARTIFACTS_DIR, 'screenshots');
  const started = Date.now();
  const say = (line: string): void => void process.stdout.write(`[shim] ${line}\n`);

  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  let finish: (code: number, why: string) => void = () => {};
  const done = new Promise<number>((res) => {
    finish = (code, why) => {
      finish = () => {}; // the first reason wins; closing Chromium afterwards is no news
      say(`${why} after ${((Date.now() - started) / 1000).toFixed(1)} s`);
      res(code);
    };
  });
  const onSignal = (signal: NodeJS.Signals): void => finish(130, `interrupted by ${signal}`);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.once('SIGHUP', onSignal);
  const timer = setTimeout(() => finish(124, `timed out (${timeoutMs} ms)`), timeoutMs);

  try {
    server = await startCodeServer({
      workspace: args.workspace,
      trust,
      userDataDir: args.userDataDir,
      extensionsDir: args.extensionsDir,
      env: { BRAID_SCREENSHOT_DIR: screenshotDir, BRAID_TEST_SHIM: '1' },
    });
    say(`code-server ${server.origin} (pid ${server.pid}, trust ${trust ? 'on' : 'off'}, log ${server.logFile})`);
    if (args.ignored.length) say(`not applicable to code-server, ignored: ${args.ignored.join(' ')}`);
    const payload: [string, string][] = [
      ...args.developmentPaths.map((p): [string, string] => ['extensionDevelopmentPath', server!.remoteUri(p)]),
      ['extensionTestsPath', server.remoteUri(args.testsPath)],
    ];
    browser = await launchChromium();
    browser.on('disconnected', () => finish(1, 'Chromium disconnected'));
    page = await openWorkbenchPage(browser, server.workbenchUrl(payload), {
      onExit: (code) => finish(code, `tests reported exit code ${code}`),
      onConsole: (line) => {
        const shot = line.indexOf(SCREENSHOT_MARKER);
        if (shot >= 0 && page)
          void screenshot(page, screenshotDir, line.slice(shot + SCREENSHOT_MARKER.length).trim(), say);
        else process.stdout.write(`${quiet(line)}\n`);
      },
    });
    page.on('crash', () => finish(1, 'the workbench page crashed'));
    const code = await done;
    if (code !== 0 && server)
      process.stderr.write(`--- last lines of code-server's log (${server.logFile}) ---\n${server.logTail()}\n`);
    return code;
  } catch (err) {
    process.stderr.write(`[shim] ${(err as Error).stack ?? String(err)}\n`);
    if (server) process.stderr.write(`--- last lines of code-server's log ---\n${server.logTail()}\n`);
    return 1;
  } finally {
    clearTimeout(timer);
    await browser?.close().catch(() => {});
    await server?.stop();
  }
}

/** Known harmless workbench noise (no gallery on a closed network) keeps its first line only, not its stack. */
function quiet(line: string): string {
  return line.includes('ENOTFOUND open-vsx.org') ? (line.split('\n')[0] ?? line) : line;
}

async function screenshot(page: Page, dir: string, name: string, say: (l: string) => void): Promise<void> {
  const safe = name.replace(/[^A-Za-z0-9._-]/g, '_') || 'screenshot';
  const file = join(dir, `${safe}.png`);
  mkdirSync(dir, { recursive: true });
  try {
    // Written to a temp name and renamed, so a test polling for the file never sees half a PNG.
    const part = `${file}.part.png`;
    await page.screenshot({ path: part });
    renameSync(part, file);
    say(`screenshot ${file}`);
  } catch (err) {
    say(`screenshot ${name} failed: ${(err as Error).message}`);
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`[shim] ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
