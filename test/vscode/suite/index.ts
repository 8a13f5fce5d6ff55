// The test module VS Code's extension host loads (`--extensionTestsPath`): runs every bundled
// `*.test.js` of one suite folder with mocha, prints the spec report to the console (the shim
// forwards it to CI's log) and writes a JSON result file that the runner reads back. One module
// serves every suite (main, trust, vsix): each run of the extension host names its folder.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import Mocha from 'mocha';

export interface TestRecord {
  title: string;
  state: 'passed' | 'failed' | 'pending';
  durationMs?: number | undefined;
  error?: string;
}

export interface SuiteResults {
  passed: number;
  failed: number;
  pending: number;
  durationMs: number;
  tests: TestRecord[];
}

/** Where the results go: $BRAID_VSCODE_RESULTS, else test-artifacts/ of the project (this bundle is out/test/vscode/index.js). */
export function resultsFile(): string {
  return process.env.BRAID_VSCODE_RESULTS ?? join(__dirname, '..', '..', '..', 'test-artifacts', 'vscode-results.json');
}

/**
 * The folder of bundled tests: $BRAID_TEST_SUITE_DIR, absolute or relative to this bundle's folder
 * (out/test/vscode), else `suite`.
 */
export function suiteDir(): string {
  return resolve(__dirname, process.env.BRAID_TEST_SUITE_DIR || 'suite');
}

/** Entry point called by VS Code; rejects when any test failed, which makes the run exit 1. */
export async function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', timeout: 30_000, color: false, reporter: 'spec' });
  if (process.env.BRAID_TEST_GREP) mocha.grep(process.env.BRAID_TEST_GREP);
  const dir = suiteDir();
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.test.js'))
    .sort();
  if (files.length === 0) throw new Error(`no *.test.js files in ${dir}: run npm run build`);
  for (const f of files) mocha.addFile(join(dir, f));

  const results: SuiteResults = { passed: 0, failed: 0, pending: 0, durationMs: 0, tests: [] };
  const started = Date.now();
  const failures = await new Promise<number>((resolve, reject) => {
    try {
      const runner = mocha.run((n) => resolve(n));
      runner.on('pass', (t) => {
        results.passed++;
        results.tests.push({ title: t.fullTitle(), state: 'passed', durationMs: t.duration });
      });
      runner.on('fail', (t, err: Error) => {
        results.failed++;
        results.tests.push({
          title: t.fullTitle(),
          state: 'failed',
          durationMs: t.duration,
          error: err?.stack ?? String(err),
        });
      });
      runner.on('pending', (t) => {
        results.pending++;
        results.tests.push({ title: t.fullTitle(), state: 'pending' });
      });
    } catch (err) {
      reject(err);
    }
  });
  results.durationMs = Date.now() - started;
  const file = resultsFile();
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(results, null, 2));
  console.log(
    `extension host: ${results.passed} passed, ${results.failed} failed, ${results.pending} pending (${file})`,
  );
  if (failures > 0) throw new Error(`${failures} extension test(s) failed`);
}
