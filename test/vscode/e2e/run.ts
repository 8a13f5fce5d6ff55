// The end-to-end suites (`test/vscode/e2e/*.e2e.ts`): each drives a real workbench (code-server +
// headless Chromium), so they run one at a time in this process, through mocha's API. Needs a
// build first (`npm run build`) and code-server (`bash scripts/setup-vscode.sh`).
// Usage: node --import tsx test/vscode/e2e/run.ts [--grep PATTERN] [FILE.e2e.ts …]
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Mocha from 'mocha';
import { PROJECT_ROOT } from '../paths';

function parseArgs(argv: readonly string[]): { grep?: string; files: string[] } {
  const files: string[] = [];
  let grep: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--grep' || a === '-g') grep = argv[++i];
    else files.push(resolve(a));
  }
  return { ...(grep !== undefined ? { grep } : {}), files };
}

async function main(): Promise<number> {
  for (const built of ['out/extension.js', 'out/webview/main.js']) {
    if (!existsSync(join(PROJECT_ROOT, built))) throw new Error(`${built} is missing: run npm run build first`);
  }
  const args = parseArgs(process.argv.slice(2));
  const files =
    args.files.length > 0
      ? args.files
      : readdirSync(__dirname)
          .filter((f) => f.endsWith('.e2e.ts'))
          .sort()
          .map((f) => join(__dirname, f));
  if (files.length === 0) throw new Error(`no *.e2e.ts files in ${__dirname}`);

  const mocha = new Mocha({
    reporter: 'spec',
    timeout: 180_000,
    ...(args.grep !== undefined ? { grep: args.grep } : {}),
  });
  for (const f of files) mocha.addFile(f);
  await mocha.loadFilesAsync();
  const started = Date.now();
  const failures = await new Promise<number>((res) => mocha.run(res));
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stdout.write(`e2e: ${failures === 0 ? 'PASS' : `FAIL (${failures} failed)`} in ${seconds} s\n`);
  return failures === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
