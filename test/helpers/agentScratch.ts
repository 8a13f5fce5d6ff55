// A scratch folder for tests that run the CLI against agent CLIs: our own bundle of the CLI (a
// concurrent build of out/ must not swap it mid-test), an empty folder for a PATH without agents,
// and a bin/ whose `claude` is the fake agent.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

const ROOT = resolve(__dirname, '../..');
export const FAKE_AGENT = join(ROOT, 'test/fixtures/agents/fake-agent.mjs');

export interface AgentScratch {
  readonly dir: string;
  readonly cli: string;
  /** A folder with nothing in it: PATH=empty finds no agent. */
  readonly empty: string;
  /** Holds `claude`, the fake agent. */
  readonly bin: string;
  /** A new workspace folder in the scratch holding `text` as p.braid.yaml. */
  workspace(text: string): { dir: string; plan: string };
  remove(): void;
}

/** Call from `before()`: bundles the CLI (a second or so). */
export async function makeAgentScratch(prefix: string): Promise<AgentScratch> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const s: AgentScratch = {
    dir,
    cli: join(dir, 'cli.js'),
    empty: join(dir, 'empty'),
    bin: join(dir, 'bin'),
    workspace(text) {
      const ws = mkdtempSync(join(dir, 'ws-'));
      writeFileSync(join(ws, 'p.braid.yaml'), text);
      return { dir: ws, plan: join(ws, 'p.braid.yaml') };
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
  await build({
    entryPoints: [join(ROOT, 'src/cli/main.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile: s.cli,
    logLevel: 'warning',
  });
  mkdirSync(s.empty);
  mkdirSync(s.bin);
  writeFileSync(
    join(s.bin, 'claude'),
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(FAKE_AGENT)} "$@"\n`,
  );
  chmodSync(join(s.bin, 'claude'), 0o755);
  return s;
}
