// Would forking the warm launchers from a worker thread free the engine's thread? Node's spawn()
// blocks the thread that calls it while the kernel copies the whole process, and in runPlan that
// thread is the one that must hear a launcher's report or a step's exit. A worker thread has its
// own event loop, but fork() still copies the one address space the threads share, holding its
// memory-map lock while it does, so the main thread may stall anyway. This measures it: a fresh
// Node process, grown to the `braid` CLI's size during a run (~75 MiB RSS), bounces a byte off a
// `cat` at random moments on its main thread while launcher-like children (bash with five pipes,
// as LauncherPool spawns them) are forked one after another, by the main thread itself or by a
// worker, in alternating rounds.
import { execFileSync } from 'node:child_process';
import { envInt, median, ms, quantile, table } from './stats';

// Plain JavaScript, run by `node -e` so that tsx's own memory does not weigh on fork.
const PROGRAM = String.raw`
const { spawn } = require('node:child_process');
const { Worker, isMainThread, parentPort, workerData } = require('node:worker_threads');
function forkLoop(n, done) {
  const calls = [];
  const next = () => {
    if (calls.length >= n) return done(calls);
    const t = performance.now();
    const c = spawn('/bin/bash', ['--noprofile', '--norc', '-c', 'exit 0'], { stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'], detached: true });
    calls.push(performance.now() - t);
    c.on('close', () => setTimeout(next, 3));
  };
  next();
}
function round(where, forks) {
  return new Promise((resolve, reject) => {
    const echo = spawn('/bin/cat', [], { stdio: ['pipe', 'pipe', 'ignore'] });
    echo.stdin.on('error', () => undefined);
    const trips = [];
    let sent = 0, running = true;
    const ping = () => { if (!running) return; sent = performance.now(); echo.stdin.write('x'); };
    echo.stdout.on('data', () => { trips.push(performance.now() - sent); setTimeout(ping, Math.random() * 3); });
    ping();
    const finish = (calls) => { running = false; echo.kill(); resolve({ calls, trips }); };
    if (where === 'main') return forkLoop(forks, finish);
    const w = new Worker(process.argv[1], { eval: true, workerData: forks });
    w.once('message', (calls) => { void w.terminate(); finish(calls); });
    w.once('error', (e) => { running = false; echo.kill(); reject(e); }); // else the round would never end
  });
}
if (!isMainThread) forkLoop(workerData, (c) => parentPort.postMessage(c));
else (async () => {
  const [forks, rounds, mib] = process.argv.slice(2).map(Number);
  const ballast = [];
  while (process.memoryUsage().rss < mib * 2 ** 20) for (let i = 0; i < 10000; i++) ballast.push({ i, s: 'x'.repeat(40) + i });
  const got = { main: { calls: [], trips: [] }, worker: { calls: [], trips: [] } };
  for (let r = 0; r < rounds; r++) for (const where of ['main', 'worker']) {
    const { calls, trips } = await round(where, forks);
    got[where].calls.push(...calls); got[where].trips.push(...trips);
  }
  process.stdout.write(JSON.stringify({ rss: process.memoryUsage().rss / 2 ** 20, got }));
})().catch((e) => { console.error(e); process.exit(1); });
`;

type Got = Record<'main' | 'worker', { calls: number[]; trips: number[] }>;

export async function benchForkThread(): Promise<void> {
  const forks = envInt('BRAID_BENCH_FORKS', 60),
    rounds = envInt('BRAID_BENCH_FORK_ROUNDS', 3),
    mib = envInt('BRAID_BENCH_FORK_MIB', 75);
  // `node -e` sets argv[1] to the first argument after the script: pass the program itself, for the worker.
  const out = execFileSync(process.execPath, ['-e', PROGRAM, PROGRAM, String(forks), String(rounds), String(mib)], {
    encoding: 'utf8',
    maxBuffer: 64 * 2 ** 20,
  });
  const { rss, got } = JSON.parse(out) as { rss: number; got: Got };
  console.log(`\n### Forking launchers on the engine's thread or on a worker thread\n`);
  console.log(
    `A Node process at ${rss.toFixed(0)} MiB RSS forks ${forks} launcher-like children (bash, five pipes) a round, ${rounds} alternating rounds;`,
  );
  console.log('meanwhile its main thread sends a byte to `cat` at random moments and times its return.\n');
  const at = (xs: number[], p: number) => ms(quantile(xs, p));
  table(
    ['forks run on', 'spawn() call p50', 'main thread round trip p50', 'p90', 'p99', 'max'],
    (['main', 'worker'] as const).map((w) => {
      const { calls, trips } = got[w];
      return [
        w === 'main' ? 'the main thread' : 'a worker thread',
        ms(median(calls)),
        at(trips, 0.5),
        at(trips, 0.9),
        at(trips, 0.99),
        ms(Math.max(...trips)),
      ];
    }),
  );
  console.log(
    "\nA worker would also own the launchers' pipes on its own event loop (handles cannot move between threads), so each",
  );
  console.log(
    'report would cross a postMessage, which waits while that worker forks; see docs/decisions/warm-launchers.md.',
  );
}
