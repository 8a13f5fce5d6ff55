// The bundled CLI (out/cli.js) in real processes, as users run it: `braid ARGS` to its end, or
// `braid run --json` in the background with its events as they come.
import { spawn, spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { TestRepo } from './gitRepo';

export const ROOT = resolve(__dirname, '../..');
export const MAIN = join(ROOT, 'out/cli.js');

/** Builds out/cli.js (call in a `before`); true when esbuild succeeded. */
export const buildCli = (): boolean =>
  spawnSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, stdio: 'inherit' }).status === 0;

/** `braid ARGS` in `cwd`, to its end. */
export const braid = (args: string[], cwd: string) =>
  spawnSync(process.execPath, [MAIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });

/** `braid run PLAN --json [extra]` in the background: its events as they come, and its exit; `cleanup` gets its kill. */
export function runInBackground(r: TestRepo, plan: string, cleanup: Array<() => void>, extra: readonly string[] = []) {
  const child = spawn(process.execPath, [MAIN, 'run', plan, '--json', '--workspace', r.dir, ...extra], {
    cwd: r.dir,
    env: { ...process.env, NO_COLOR: '1' },
  });
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  cleanup.push(() => child.kill('SIGKILL'));
  const events: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    events.push(JSON.parse(line) as Record<string, unknown>);
    for (const w of waiters.splice(0)) w();
  });
  const when = async (test: (e: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> => {
    for (;;) {
      const e = events.find(test);
      if (e) return e;
      await new Promise<void>((w) => waiters.push(w));
    }
  };
  return { exited, events, when, kill: (signal: NodeJS.Signals) => child.kill(signal) };
}
