// A real `braid run` (the built bundle) whose steps ignore TERM and print their pids, for tests
// and the bench that kill the engine and look for steps left behind.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { isGone } from './processes';

export const CLI_MAIN = join(resolve(__dirname, '../..'), 'out/cli.js');

/** Polls until every pid is gone or `ms` passed; the pids still alive. */
export async function survivors(pids: readonly number[], ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  let alive = pids.filter((p) => !isGone(p));
  while (alive.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 10));
    alive = alive.filter((p) => !isGone(p));
  }
  return alive;
}

/** A step that ignores TERM, printing its pid; `spawned`: with an environment the bash launchers refuse (the resident launcher, where perl is, starts both kinds). */
const stepYaml = (id: string, spawned: boolean): string[] => [
  `  ${id}:`,
  `    run: sh -c 'trap "" TERM; echo "pid $$"; exec sleep 60'`,
  ...(spawned ? ['    env:', '      BASH_FORCE_SPAWN: "1"'] : []),
];

/**
 * Starts `braid run --json` in `dir` on a plan of `n` such steps (every other one spawned, the
 * rest from warm launchers); resolves once all printed their pids.
 */
export async function engineWithSteps(
  dir: string,
  n: number,
  extraArgs: readonly string[] = [],
): Promise<{ engine: ChildProcess; pids: number[]; runId: string }> {
  const steps = Array.from({ length: n }, (_, i) => stepYaml(`s${i}`, i % 2 === 1)).flat();
  writeFileSync(join(dir, 'p.braid.yaml'), ['version: 1', `concurrency: ${n}`, 'steps:', ...steps].join('\n') + '\n');
  const engine = spawn(process.execPath, [CLI_MAIN, 'run', 'p.braid.yaml', '--json', ...extraArgs], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  engine.stderr.resume();
  const pids: number[] = [];
  let runId = '';
  await new Promise<void>((done, fail) => {
    const early = (code: number | null): void =>
      fail(new Error(`the engine exited (${code}) before its steps started`));
    engine.once('exit', early);
    createInterface({ input: engine.stdout }).on('line', (line) => {
      const e = JSON.parse(line) as { type: string; text?: string; run: string };
      runId ||= e.run;
      const m = e.type === 'output' ? /pid (\d+)/.exec(e.text ?? '') : null;
      if (m) pids.push(Number(m[1]));
      if (pids.length === n) {
        engine.off('exit', early);
        done();
      }
    });
  });
  return { engine, pids, runId };
}
