// `npm run test:vscode`: the bundled extension-host suites (out/test/vscode, built by
// `npm run build`) in a real VS Code, through the standard @vscode/test-electron runTests() API.
// Here VS Code is code-server driven by headless Chromium (codeServerShim.sh); where a desktop
// VS Code is at hand, BRAID_VSCODE_EXECUTABLE=/path/to/code runs the same suites there.
//
// Two extension-host runs, each in its own fresh workspace and profile: `main` (suite/, workspace
// trust off) and `trust` (trust/, trust on, so the fixture folder opens untrusted). Name suites
// to run only those: `node --import tsx test/vscode/runTests.ts trust`.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTests } from '@vscode/test-electron';
import { makeFixtureWorkspace } from './fixtureWorkspace';
import { ARTIFACTS_DIR, PROJECT_ROOT } from './paths';
import type { SuiteResults } from './suite/index';
import { plan } from '../helpers/planText';

export interface ExtensionSuite {
  /** Names the run in the log and its results file (`vscode-results[-NAME].json`). */
  readonly name: string;
  /** The bundled tests' folder, relative to out/test/vscode (or absolute). */
  readonly suiteDir: string;
  /** Keep workspace trust on: the fixture folder then opens untrusted. */
  readonly trust?: boolean;
  /** The extension loaded in development mode; default the project. */
  readonly developmentPath?: string;
  /** Extensions folder for the run (e.g. one a .vsix was installed into); default a fresh one. */
  readonly extensionsDir?: string;
  /** More environment for the extension host. */
  readonly env?: Readonly<Record<string, string>>;
  /** Runs on the fresh workspace before the window opens it. */
  readonly prepare?: (workspace: string) => void;
}

export interface SuiteOutcome {
  readonly name: string;
  readonly code: number;
  readonly results: SuiteResults | undefined;
  readonly seconds: number;
}

const TESTS_PATH = join(PROJECT_ROOT, 'out', 'test', 'vscode', 'index.js');

/** The built files a run needs; throws with the fix when one is missing. */
export function requireBuilt(...files: string[]): void {
  for (const built of [TESTS_PATH, join(PROJECT_ROOT, 'out', 'extension.js'), ...files]) {
    if (!existsSync(built)) throw new Error(`${built} is missing: run npm run build first`);
  }
}

/** One extension-host run of one suite folder; reports its failures on stderr. */
export async function runExtensionSuite(suite: ExtensionSuite): Promise<SuiteOutcome> {
  const shim = join(__dirname, 'codeServerShim.sh');
  chmodSync(shim, 0o755); // in case a checkout lost the executable bit
  const executable = process.env.BRAID_VSCODE_EXECUTABLE ?? shim;
  const resultsFile = join(
    ARTIFACTS_DIR,
    suite.name === 'main' ? 'vscode-results.json' : `vscode-results-${suite.name}.json`,
  );
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  rmSync(resultsFile, { force: true });

  const workspace = makeFixtureWorkspace();
  const profile = mkdtempSync(join(tmpdir(), 'braid-vscode-profile-'));
  const started = Date.now();
  let code: number;
  try {
    suite.prepare?.(workspace.path);
    console.log(`vscode: ${suite.name} suite (${suite.suiteDir}, workspace trust ${suite.trust ? 'on' : 'off'})`);
    code = await runTests({
      vscodeExecutablePath: executable,
      extensionDevelopmentPath: suite.developmentPath ?? PROJECT_ROOT,
      extensionTestsPath: TESTS_PATH,
      extensionTestsEnv: {
        ...suite.env,
        BRAID_VSCODE_RESULTS: resultsFile,
        BRAID_TEST_SUITE_DIR: suite.suiteDir,
        // Read by the shim; a desktop VS Code has no equivalent, so a trust suite there needs trust left on by its settings.
        ...(suite.trust ? { BRAID_TEST_TRUST: '1' } : {}),
      },
      launchArgs: [
        workspace.path,
        `--user-data-dir=${join(profile, 'user-data')}`,
        `--extensions-dir=${suite.extensionsDir ?? join(profile, 'extensions')}`,
      ],
    });
  } catch (err) {
    // runTests rejects on a non-zero exit (TestRunFailedError carries the code).
    code = typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1;
    if (!(err as { code?: unknown }).code) process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  } finally {
    // BRAID_KEEP_TEST_WORKSPACE=1 keeps both for a look at run records and the extension's logs.
    if (process.env.BRAID_KEEP_TEST_WORKSPACE === '1') console.log(`vscode: kept ${workspace.path} and ${profile}`);
    else {
      workspace.remove();
      rmSync(profile, { recursive: true, force: true });
    }
  }
  const seconds = (Date.now() - started) / 1000;

  if (!existsSync(resultsFile)) {
    process.stderr.write(
      `vscode ${suite.name}: the suite wrote no results (${resultsFile}); exit code ${code}, ${seconds.toFixed(1)} s\n`,
    );
    return { name: suite.name, code: code || 1, results: undefined, seconds };
  }
  const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as SuiteResults;
  for (const t of results.tests.filter((t) => t.state === 'failed')) {
    process.stderr.write(`FAILED [${suite.name}] ${t.title}\n${t.error ?? ''}\n`);
  }
  console.log(
    `vscode ${suite.name}: ${results.passed} passed, ${results.failed} failed in ${seconds.toFixed(1)} s (results: ${resultsFile})`,
  );
  return { name: suite.name, code: results.failed > 0 ? code || 1 : code, results, seconds };
}

/**
 * A failed run recorded before the window opens (by the CLI, as a user's earlier run would be), so
 * the trust suite can show that Retry Failed Steps refuses an existing run, not just a missing one.
 */
function seedFailedRun(workspace: string): void {
  const planFile = join(workspace, 'plans', 'seeded.braid.yaml');
  mkdirSync(join(workspace, 'plans'), { recursive: true });
  writeFileSync(
    planFile,
    plan`
      version: 1
      name: Seeded
      steps:
        bad:
          run: exit 4
        good:
          run: echo ok
      `,
  );
  try {
    execFileSync(process.execPath, [join(PROJECT_ROOT, 'out', 'cli.js'), 'run', planFile, '--workspace', workspace], {
      cwd: workspace,
      stdio: 'pipe',
    });
  } catch (err) {
    if ((err as { status?: unknown }).status !== 1) throw err; // 1: the run failed, as meant
    return;
  }
  throw new Error('the seeded run was meant to fail');
}

export const SUITES: readonly ExtensionSuite[] = [
  { name: 'main', suiteDir: 'suite' },
  { name: 'trust', suiteDir: 'trust', trust: true, prepare: seedFailedRun },
];

async function main(names: readonly string[]): Promise<number> {
  const unknown = names.filter((n) => !SUITES.some((s) => s.name === n));
  if (unknown.length)
    throw new Error(`unknown suite ${unknown.join(', ')}; the suites are ${SUITES.map((s) => s.name).join(', ')}`);
  requireBuilt(join(PROJECT_ROOT, 'out', 'cli.js'));
  const outcomes: SuiteOutcome[] = [];
  // One after the other: two workbenches at once would only fight over two cores.
  for (const suite of SUITES.filter((s) => names.length === 0 || names.includes(s.name)))
    outcomes.push(await runExtensionSuite(suite));
  const passed = outcomes.reduce((n, o) => n + (o.results?.passed ?? 0), 0);
  const failed = outcomes.reduce((n, o) => n + (o.results?.failed ?? 0), 0);
  console.log(
    `vscode: ${passed} passed, ${failed} failed (${outcomes.map((o) => `${o.name} ${o.code === 0 ? 'ok' : `exit ${o.code}`}`).join(', ')})`,
  );
  return outcomes.find((o) => o.code !== 0)?.code ?? 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
      process.exit(1);
    },
  );
}
