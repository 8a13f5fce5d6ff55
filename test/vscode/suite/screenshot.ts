// Lets a test in the extension host ask for a picture of the workbench it runs in.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { SCREENSHOT_MARKER } from './screenshotMarker';

/**
 * Asks the code-server shim for a screenshot named NAME and waits until it is written; resolves
 * to its path, or undefined where no shim is listening (a desktop VS Code run).
 */
export async function requestScreenshot(name: string, timeoutMs = 10_000): Promise<string | undefined> {
  const dir = process.env.BRAID_SCREENSHOT_DIR;
  if (!dir || process.env.BRAID_TEST_SHIM !== '1') return undefined;
  const file = join(dir, `${name.replace(/[^A-Za-z0-9._-]/g, '_')}.png`);
  rmSync(file, { force: true }); // a picture left by an earlier run must not count
  const since = Date.now();
  console.log(`${SCREENSHOT_MARKER}${name}`);
  while (Date.now() - since < timeoutMs) {
    if (existsSync(file)) return file;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error(`screenshot ${name} was not written to ${file} within ${timeoutMs} ms`);
}
