// Where the harness finds code-server, Chromium and the project, and where it leaves artifacts.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The project root (this file lives in test/vscode). */
export const PROJECT_ROOT = resolve(__dirname, '..', '..');

/** Screenshots, result files and logs worth keeping after a CI run (git-ignored). */
export const ARTIFACTS_DIR = process.env.BRAID_ARTIFACTS_DIR ?? join(PROJECT_ROOT, 'test-artifacts');

/** Debian's Chromium; playwright-core never downloads a browser here. */
export const CHROMIUM_PATH = process.env.BRAID_CHROMIUM ?? '/usr/bin/chromium';

/** code-server's entry script, installed by scripts/setup-vscode.sh; throws with the fix if it is missing. */
export function codeServerEntry(): string {
  const cache = process.env.BRAID_VSCODE_CACHE ?? join(PROJECT_ROOT, '.vscode-test', 'code-server');
  const entry = join(cache, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
  if (!existsSync(entry)) {
    throw new Error(`code-server is not installed (${entry} is missing): run bash scripts/setup-vscode.sh`);
  }
  return entry;
}
