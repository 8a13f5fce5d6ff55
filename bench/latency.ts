// Part 3: with real processes through the whole engine (runPlan: compile, run store, lock
// files, StepExecutor), (a) the latency from a step's needs being done (the scheduler's
// `succeeded` event of its last need; the run's start for roots) to its child's `spawn` event
// (the executor's onSpawn hook), and (b) the engine's time a step over a bare spawn of the same command.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunStore } from '../src/core/engine/records/runStore';
import { StepExecutor } from '../src/core/engine/steps/executor';
import { runPlan } from '../src/core/engine/runPlan';
import { Scheduler } from '../src/core/engine/scheduling/scheduler';
import { compilePlan } from '../src/core/plan/compile';
import { envInt, goal, median, ms, quantile, table } from './stats';

type OnEvent = NonNullable<Parameters<typeof runPlan>[0]['onEvent']>;
type OnSpawn = (stepId: string, pid: number, spawnMs: number) => void;

/** Ready → running and → spawned of every step of `chains` chains run by `run`, and how long each spawn() blocked. */
async function latencies(
  chains: number,
  length: number,
  run: (onEvent: OnEvent, onSpawn: OnSpawn, onStart: () => void) => Promise<number>,
): Promise<Record<'running' | 'spawned' | 'spawnCall', number[]>> {
  const doneAt = new Map<string, number>(),
    runningAt = new Map<string, number>(),
    spawnedAt = new Map<string, number>(),
    spawnMs = new Map<string, number>();
  let runStart = 0;
  await run(
    (e) => {
      if (e.type === 'step' && e.status === 'succeeded') doneAt.set(e.id, performance.now());
      if (e.type === 'step' && e.status === 'running') runningAt.set(e.id, performance.now());
    },
    (id, _pid, blocked) => {
      spawnedAt.set(id, performance.now());
      spawnMs.set(id, blocked);
    },
    () => {
      runStart = performance.now();
    },
  );
  const out = { running: [] as number[], spawned: [] as number[], spawnCall: [] as number[] };
  for (let c = 0; c < chains; c++) {
    for (let i = 0; i < length; i++) {
      const id = `c${c}s${i}`;
      const spawned = spawnedAt.get(id),
        running = runningAt.get(id);
      const ready = i === 0 ? runStart : doneAt.get(`c${c}s${i - 1}`);
      if (spawned === undefined || ready === undefined || running === undefined)
        throw new Error(`latency bench: no spawn or ready time for ${id}`);
      out.spawned.push(spawned - ready);
      out.running.push(running - ready);
      out.spawnCall.push(spawnMs.get(id)!);
    }
  }
  return out;
}

function planText(name: string, chains: number, length: number, concurrency: number): string {
  const lines = ['version: 1', `name: ${name}`, `concurrency: ${concurrency}`, 'steps:'];
  for (let c = 0; c < chains; c++) {
    for (let i = 0; i < length; i++) {
      lines.push(`  c${c}s${i}:`, '    run: "true"');
      if (i > 0) lines.push(`    needs: [c${c}s${i - 1}]`);
    }
  }
  return lines.join('\n') + '\n';
}

async function runEngine(
  dir: string,
  file: string,
  onEvent?: OnEvent,
  onSpawn?: OnSpawn,
  onStart?: () => void,
): Promise<number> {
  let started = 0;
  const out = await runPlan({
    planFile: file,
    workspace: dir,
    compile: { isGit: false },
    ...(onEvent ? { onEvent } : {}),
    ...(onSpawn ? { onSpawn } : {}),
    onStart: () => {
      started = performance.now();
      onStart?.();
    },
  });
  const elapsed = performance.now() - started;
  if (!out.ok || out.result.status !== 'succeeded')
    throw new Error(`latency bench run failed: ${JSON.stringify(out.ok ? out.result.status : out)}`);
  return elapsed;
}

function bareSpawn(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', 'true']);
    child.once('error', reject);
    child.once('close', () => resolve());
  });
}

export async function benchLatency(): Promise<void> {
  const chains = 4,
    length = envInt('BRAID_BENCH_LATENCY_CHAIN', 50);
  const n = envInt('BRAID_BENCH_OVERHEAD_STEPS', 100),
    rounds = envInt('BRAID_BENCH_OVERHEAD_ROUNDS', 3);
  const dir = await mkdtemp(join(tmpdir(), 'braid-bench-latency-'));
  try {
    // (a) c chains at concurrency c: a slot is always free when a step becomes ready, so the
    // latency is the engine's (and, with c > 1, the other chains' spawns sharing the loop).
    const results: Array<{ label: string; r: Record<'running' | 'spawned' | 'spawnCall', number[]> }> = [];
    for (const c of [1, chains]) {
      const text = planText(`chains${c}`, c, length, c);
      const file = join(dir, `chains${c}.braid.yaml`);
      await writeFile(file, text);
      await runEngine(dir, file); // warm-up: module loading, first store writes
      results.push({
        label: `runPlan (warm launchers), ${c} chain${c > 1 ? 's' : ''} at k = ${c}`,
        r: await latencies(c, length, (onEvent, onSpawn, onStart) => runEngine(dir, file, onEvent, onSpawn, onStart)),
      });
      const graph = compilePlan(file, text, { isGit: false }).graph!;
      results.push({
        label: `Scheduler + StepExecutor, spawn() at each start, ${c} chain${c > 1 ? 's' : ''}`,
        r: await latencies(c, length, async (onEvent, onSpawn, onStart) => {
          const runner = new StepExecutor({
            graph,
            workspace: dir,
            onSpawn,
            paths: {
              log: (id) => join(dir, 'sched', `${id}.log`),
              writeOutput: (id, text) => new RunStore(dir).writeOutput('sched', id, text),
              output: (id) => new RunStore(dir).paths('sched').output(id),
            },
          });
          const s = new Scheduler({ graph, runId: 'lat', runner, onEvent });
          onStart();
          const r = await s.run();
          if (r.status !== 'succeeded') throw new Error(`latency bench run ended ${r.status}`);
          return 0;
        }),
      });
    }

    // (b) n independent `true` steps at concurrency 1, alternating with n bare spawns, per step.
    const flatFile = join(dir, 'flat.braid.yaml');
    await writeFile(flatFile, planText('flat', n, 1, 1));
    const engine: number[] = [],
      bare: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const t = performance.now();
      for (let i = 0; i < n; i++) await bareSpawn();
      bare.push((performance.now() - t) / n);
      engine.push((await runEngine(dir, flatFile)) / n);
    }

    console.log(`\n### Real processes: ready → spawned, and engine overhead a step\n`);
    console.log(
      `Through runPlan (compile, run store, lock files, StepExecutor) in a temp dir, and through the Scheduler and StepExecutor alone:`,
    );
    console.log(`1 and ${chains} chains of ${length} \`true\` steps at concurrency = chains`);
    console.log(
      `(a slot is always free), from the scheduler's \`succeeded\` event of a step's need (the run's start for the first) to its child's`,
    );
    console.log(
      `\`spawn\` event (the executor's \`onSpawn\`); then ${n} independent \`true\` steps at concurrency 1 against ${n} bare \`spawn('/bin/sh', ['-c', 'true'])\` in a row`,
    );
    console.log(`(the command Braid runs for \`run: "true"\`), median of ${rounds} alternating rounds.\n`);
    const pair = (xs: number[]) => `${ms(median(xs))} / ${ms(quantile(xs, 0.99))}`;
    table(
      [
        'run',
        'ready → `running` p50 / p99',
        'ready → child `spawn` event p50 / p99',
        'the spawn() call itself p50 / p99',
        'the rest (engine, event loop) p50 / p99',
        'goal',
      ],
      results.map(({ label, r }) => {
        const p99 = quantile(r.spawned, 0.99);
        return [
          label,
          pair(r.running),
          pair(r.spawned),
          pair(r.spawnCall),
          pair(r.spawned.map((x, i) => x - r.spawnCall[i]!)),
          goal(ms(p99), p99 <= 5, 'p99 ≤ 5 ms'),
        ];
      }),
    );
    console.log('');
    console.log(
      '"The spawn() call itself" is the time starting the step blocks the thread: Node\'s child_process.spawn() (libuv forks,',
    );
    console.log(
      'the child execs), or with a warm launcher writing its request (src/core/exec/launcher.ts; "spawned" is then its report',
    );
    console.log('that exec is next); "the rest" is each step\'s ready → spawned minus that call.');
    console.log('');
    const e = median(engine),
      b = median(bare);
    table(
      ['a step', 'time'],
      [
        ['bare spawn of /bin/sh -c true', ms(b)],
        ['through the engine', ms(e)],
        ['engine overhead', ms(e - b)],
      ],
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
