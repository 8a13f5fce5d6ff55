// `npm run test:vscode`: the bundled extension-host suite (out/test/vscode, built by
// `npm run build`) in a real VS Code, through the standard @vscode/test-electron runTests() API.
// Here VS Code is code-server driven by headless Chromium (codeServerShim.sh); where a desktop
// VS Code is at hand, BRAID_VSCODE_EXECUTABLE=/path/to/code runs the same suite there.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTests } from '@vscode/test-electron';
import { makeFixtureWorkspace } from './fixtureWorkspace';
import { ARTIFACTS_DIR, PROJECT_ROOT } from './paths';
import type { SuiteResults } from './suite/index';

async function main(): Promise<number> {
  const testsPath = join(PROJECT_ROOT, 'out', 'test', 'vscode', 'index.js');
  for (const built of [testsPath, join(PROJECT_ROOT, 'out', 'extension.js')]) {
    if (!existsSync(built)) throw new Error(`${built} is missing: run npm run build first`);
  }
  const shim = join(__dirname, 'codeServerShim.sh');
  chmodSync(shim, 0o755); // in case a checkout lost the executable bit
  const executable = process.env.BRAID_VSCODE_EXECUTABLE ?? shim;
  const resultsFile = join(ARTIFACTS_DIR, 'vscode-results.json');
  rmSync(resultsFile, { force: true });

  const workspace = makeFixtureWorkspace();
  const profile = mkdtempSync(join(tmpdir(), 'braid-vscode-profile-'));
  const started = Date.now();
  let code: number;
  try {
    code = await runTests({
      vscodeExecutablePath: executable,
      extensionDevelopmentPath: PROJECT_ROOT,
      extensionTestsPath: testsPath,
      extensionTestsEnv: { BRAID_VSCODE_RESULTS: resultsFile },
      launchArgs: [workspace.path, `--user-data-dir=${join(profile, 'user-data')}`, `--extensions-dir=${join(profile, 'extensions')}`],
    });
  } catch (err) {
    // runTests rejects on a non-zero exit (TestRunFailedError carries the code).
    code = typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1;
    if (!(err as { code?: unknown }).code) process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  } finally {
    workspace.remove();
    rmSync(profile, { recursive: true, force: true });
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);

  if (!existsSync(resultsFile)) {
    process.stderr.write(`vscode: the suite wrote no results (${resultsFile}); exit code ${code}, ${seconds} s\n`);
    return code || 1;
  }
  const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as SuiteResults;
  for (const t of results.tests.filter((t) => t.state === 'failed')) {
    process.stderr.write(`FAILED ${t.title}\n${t.error ?? ''}\n`);
  }
  console.log(`extension tests took ${seconds} s (results: ${resultsFile})`);
  console.log(`vscode: ${results.passed} passed, ${results.failed} failed`);
  return results.failed > 0 ? code || 1 : code;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
