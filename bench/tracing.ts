// What a run's trace costs: the same 1,000-step plan (`true` steps, real processes, through
// runPlan as the CLI runs it) with its spans exported to an OTLP/HTTP receiver on 127.0.0.1 and
// without, alternated, in one run; the ratio of medians, goal ≤ 1.05. Measured as the CPU time of
// Braid's own process (user + system, its steps' processes apart), which is what tracing adds to
// and what a loaded machine disturbs least; wall time is shown beside it. The receiver only
// drains the requests (decoding them is the collector's cost, not Braid's); the traced run's
// figures include the flush of its last spans at its end.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runPlan } from '../src/core/engine/runPlan';
import { tracingObserver } from '../src/core/telemetry/tracing';
import { envInt, fixed, goal, median, ms, table } from './stats';

function planText(n: number): string {
  const lines = ['version: 1', 'concurrency: 8', 'steps:'];
  // Chains of ten, so the run has needs to schedule as well as steps to start.
  for (let i = 0; i < n; i++)
    lines.push(`  s${i}:`, '    run: "true"', ...(i % 10 === 0 ? [] : [`    needs: [s${i - 1}]`]));
  return lines.join('\n') + '\n';
}

export async function benchTracing(): Promise<void> {
  const n = 1000;
  const rounds = envInt('BRAID_BENCH_TRACING_ROUNDS', 3);
  console.log(`\n### Tracing's cost (${n} \`true\` steps, concurrency 8, OTLP/HTTP protobuf to 127.0.0.1)\n`);
  console.log(
    `The same run with its trace exported and without, alternated, ${rounds} rounds; medians. Goal: traced ÷ plain ≤ 1.05.\n`,
  );
  let spans: number;
  let bytes = 0;
  const server = createServer((req, res) => {
    req.on('data', (c: Buffer) => {
      bytes += c.length;
    });
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dir = await mkdtemp(join(tmpdir(), 'braid-bench-tracing-'));
  const planFile = join(dir, 'p.braid.yaml');
  await writeFile(planFile, planText(n));
  const run = async (traced: boolean): Promise<{ cpu: number; wall: number }> => {
    const notices: string[] = [];
    const observers = traced ? [tracingObserver({}, { endpoint }, (m) => notices.push(m))!] : [];
    const t = performance.now();
    const c = process.cpuUsage();
    const out = await runPlan({
      planFile,
      workspace: dir,
      compile: { isGit: false },
      observers,
      onNotice: (m) => notices.push(m),
    });
    const used = process.cpuUsage(c);
    const wall = performance.now() - t;
    if (!out.ok || out.result.status !== 'succeeded')
      throw new Error(`tracing bench run: ${JSON.stringify(out.ok ? out.result.status : out)}`);
    if (notices.length > 0) throw new Error(`tracing bench: ${notices.join('; ')}`);
    return { cpu: (used.user + used.system) / 1000, wall };
  };
  const plain: { cpu: number; wall: number }[] = [],
    traced: { cpu: number; wall: number }[] = [];
  try {
    await run(false); // warm-up: the JIT, the launchers' first start, the SDK's first load
    await run(true);
    const before = bytes;
    for (let i = 0; i < rounds; i++) {
      // Alternated, and each round's order swapped, so drift in the machine's load falls on both.
      if (i % 2 === 0) {
        plain.push(await run(false));
        traced.push(await run(true));
      } else {
        traced.push(await run(true));
        plain.push(await run(false));
      }
    }
    bytes = (bytes - before) / rounds;
    spans = 1 + 2 * n;
  } finally {
    server.close();
    await rm(dir, { recursive: true, force: true });
  }
  const cpu = (xs: typeof plain) => median(xs.map((x) => x.cpu));
  const wall = (xs: typeof plain) => median(xs.map((x) => x.wall));
  const ratio = cpu(traced) / cpu(plain);
  table(
    ['run', 'Braid CPU (median)', 'wall (median)', 'CPU, each round'],
    [
      ['plain', ms(cpu(plain)), ms(wall(plain)), plain.map((x) => ms(x.cpu)).join(', ')],
      [
        `traced (${spans} spans, ${(bytes / 1024).toFixed(0)} KiB a run)`,
        ms(cpu(traced)),
        ms(wall(traced)),
        traced.map((x) => ms(x.cpu)).join(', '),
      ],
      ['traced ÷ plain', goal(fixed(ratio), ratio <= 1.05, '≤ 1.05'), fixed(wall(traced) / wall(plain)), ''],
    ],
  );
}
