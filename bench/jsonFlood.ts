// Part: memory of `braid run --json` under a flood. 100 steps each print 10 MB of lines (the
// sizes scale with BRAID_BENCH_FLOOD_STEPS / _MB); the engine's peak RSS (VmHWM) with a reader
// that keeps up, and with one that reads nothing until the run has ended.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { envInt, goal, table } from './stats';

const peakMb = (pid: number): number =>
  Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;

async function flood(
  dir: string,
  reads: boolean,
): Promise<{ peak: number; seconds: number; bytes: number; code: number | null }> {
  const main = join(resolve(__dirname, '..'), 'out/cli.js');
  const started = performance.now();
  const engine = spawn(process.execPath, [main, 'run', 'p.braid.yaml', '--json'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  engine.stderr.resume();
  let bytes = 0;
  let peak = 0;
  const count = (b: Buffer): void => {
    bytes += b.length;
  };
  if (reads) engine.stdout.on('data', count);
  else engine.stdout.pause();
  // The run's end is in its record (the reader that reads nothing learns it there).
  const ended = (): boolean => {
    try {
      const [id] = readdirSync(join(dir, '.braid', 'runs'));
      return (
        (JSON.parse(readFileSync(join(dir, '.braid', 'runs', id!, 'run.json'), 'utf8')) as { status: string })
          .status !== 'running'
      );
    } catch {
      return false;
    }
  };
  const exit = new Promise<number | null>((r) => engine.once('exit', (c) => r(c)));
  let done = false;
  void exit.then(() => {
    done = true;
  });
  while (!done) {
    try {
      peak = Math.max(peak, peakMb(engine.pid!));
    } catch {
      /* exited */
    }
    if (!reads && engine.stdout.isPaused() && ended()) {
      // Ended: now read what stdout still holds, so the engine can exit.
      engine.stdout.on('data', count);
      engine.stdout.resume();
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { peak, seconds: (performance.now() - started) / 1000, bytes, code: await exit };
}

export async function benchJsonFlood(): Promise<void> {
  const root = resolve(__dirname, '..');
  if (spawnSync(process.execPath, ['esbuild.mjs'], { cwd: root, stdio: 'ignore' }).status !== 0)
    throw new Error('esbuild failed');
  const steps = envInt('BRAID_BENCH_FLOOD_STEPS', 100);
  const mb = envInt('BRAID_BENCH_FLOOD_MB', 10);
  const rows: string[][] = [];
  for (const reads of [true, false]) {
    const dir = mkdtempSync(join(tmpdir(), 'braid-bench-flood-'));
    try {
      const body = Array.from({ length: steps }, (_, i) => [
        `  s${i}:`,
        `    run: head -c ${mb * 1_000_000} /dev/zero | tr '\\0' x | fold -w 99`,
      ]).flat();
      writeFileSync(join(dir, 'p.braid.yaml'), ['version: 1', 'steps:', ...body].join('\n') + '\n');
      const r = await flood(dir, reads);
      rows.push([
        reads ? 'reads as it comes' : 'reads nothing until the end',
        String(r.code),
        `${(r.bytes / 1e6).toFixed(1)} MB`,
        `${r.seconds.toFixed(1)} s`,
        goal(`${r.peak.toFixed(0)} MB`, r.peak <= 200, '≤ 200 MB'),
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log(`\n### --json under a flood: ${steps} steps × ${mb} MB of output, the engine's peak RSS`);
  table(['reader', 'exit', 'stdout read', 'time', 'peak RSS'], rows);
}
