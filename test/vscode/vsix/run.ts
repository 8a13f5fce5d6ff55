// The packaged extension as users get it: `vsce package` makes the .vsix, its file list must be
// exactly the allowlist, `code-server --install-extension` installs it into a fresh extensions
// folder, and a suite runs in the extension host against that installed copy (the development
// extension is an empty host that only carries the test module). Needs `npm run build` first.
//   node --import tsx test/vscode/vsix/run.ts
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codeServerEntry, PROJECT_ROOT } from '../paths';
import { requireBuilt, runExtensionSuite } from '../runTests';
import { contentProblems } from './contents';

const say = (line: string): void => void process.stdout.write(`[vsix] ${line}\n`);

function pack(out: string): string[] {
  const started = Date.now();
  // Braid has no public repository to name yet. Without one vsce only warns (and would ask on a
  // terminal: --allow-missing-repository), but it refuses a README with relative links, which it
  // wants to rewrite against the repository: --no-rewrite-relative-links keeps them as written.
  const flags = ['--no-dependencies', '--allow-missing-repository', '--no-rewrite-relative-links'];
  execFileSync('npx', ['vsce', 'package', ...flags, '--out', out], {
    cwd: PROJECT_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  say(`packaged ${out} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return execFileSync('unzip', ['-Z1', out], { encoding: 'utf8' }).split('\n').filter(Boolean).sort();
}

/** Installs as a user would, with code-server's own CLI; returns the installed extension's folder. */
function install(vsix: string, extensionsDir: string, temp: string): string {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    XDG_CONFIG_HOME: join(temp, 'config'),
    XDG_DATA_HOME: join(temp, 'data'),
  };
  for (const key of Object.keys(env)) if (key.startsWith('VSCODE_')) delete env[key];
  const out = execFileSync(
    process.execPath,
    [
      codeServerEntry(),
      '--install-extension',
      vsix,
      '--extensions-dir',
      extensionsDir,
      '--user-data-dir',
      join(temp, 'user-data'),
    ],
    { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const version = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  const folder = readdirSync(extensionsDir).find((d) => d === `braid.braid-${version}`);
  if (!folder) throw new Error(`code-server installed no braid.braid-${version} in ${extensionsDir}:\n${out}`);
  say(`installed into ${join(extensionsDir, folder)}`);
  return join(extensionsDir, folder);
}

/** Engines the installed extension started (they outlive the window by design): ended by pid. */
function stopEngines(extensionDir: string): void {
  const cli = join(extensionDir, 'out', 'cli.js');
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (argv.includes(cli) && argv.includes('serve')) process.kill(Number(entry), 'SIGTERM');
    } catch {
      /* gone meanwhile */
    }
  }
}

async function main(): Promise<number> {
  requireBuilt(
    ...[
      'cli.js',
      'plan.schema.json',
      join('webview', 'main.js'),
      join('test', 'vscode', 'vsix', 'installed.test.js'),
    ].map((f) => join(PROJECT_ROOT, 'out', f)),
  );
  const temp = realpathSync(mkdtempSync(join(tmpdir(), 'braid-vsix-')));
  const extensionsDir = join(temp, 'extensions');
  mkdirSync(extensionsDir);
  let installed: string | undefined;
  try {
    const vsix = join(temp, 'braid.vsix');
    const entries = pack(vsix);
    // Reported, not thrown: the install and the run below still say whether the package works.
    const problems = contentProblems(entries, PROJECT_ROOT);
    if (problems.length)
      process.stderr.write(`FAILED the .vsix holds the wrong files:\n${problems.map((p) => `  ${p}`).join('\n')}\n`);
    else say(`contents are the allowlist (${entries.length} entries)`);

    installed = install(vsix, extensionsDir, temp);
    const version = (JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { version: string }).version;
    const outcome = await runExtensionSuite({
      name: 'vsix',
      suiteDir: 'vsix',
      developmentPath: join(__dirname, 'host'),
      extensionsDir,
      env: { BRAID_VSIX_EXTENSIONS_DIR: extensionsDir, BRAID_PROJECT_ROOT: PROJECT_ROOT, BRAID_VSIX_VERSION: version },
    });
    const ok = problems.length === 0 && outcome.code === 0;
    console.log(
      `vsix: contents ${problems.length ? `${problems.length} problem(s)` : 'ok'}, extension host ${outcome.results?.passed ?? 0} passed, ${outcome.results?.failed ?? 0} failed`,
    );
    return ok ? 0 : outcome.code || 1;
  } finally {
    if (installed) stopEngines(installed);
    if (process.env.BRAID_KEEP_TEMP !== '1') rmSync(temp, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
