// What a step printing 50 MiB as fast as it can costs the extension host. A child Node process
// holding ~300 MB of live heap stands in for the host (as in hostBlock.ts): it runs the step
// through the engine process (connectEngine) and does with each output event what the extension
// does: the graph panel's LogFeed batches the selected step's lines into messages, each
// serialised as webview.postMessage would, and the step's terminal gets the text, serialised as
// a pseudoterminal write would be. Goals (issue 5): loop delay p99 ≤ 10 ms, ≤ 60 messages a
// second to the panel, memory bounded.
//   node --import tsx bench/hostLog.ts      (BRAID_BENCH_LOG_MIB, BRAID_BENCH_HOST_MB)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { allocate, engineScratch, measure, runHostChild } from './hostBlock';

const MiB = 2 ** 20;

interface Measured {
  wallMs: number;
  delayP99: number;
  delayMax: number;
  busyMs: number;
  bytes: number;
  events: number;
  linesAccounted: number;
  messages: number;
  maxPerSecond: number;
  linesSent: number;
  lastSent: string;
  heapBeforeMb: number;
  heapAfterMb: number;
  rssBeforeMb: number;
  rssPeakMb: number;
}

async function child(mb: number, cliPath: string, workspace: string): Promise<Measured> {
  const keep = allocate(mb);
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
  gc();
  const heapBeforeMb = process.memoryUsage().heapUsed / MiB;
  const rssBeforeMb = process.memoryUsage().rss / MiB;
  const { connectEngine } = await import('../src/extension/engine/engineClient');
  const { LogFeed } = await import('../src/extension/graph/logFeed');
  const client = await connectEngine({
    workspace,
    cliPath,
    clientName: 'bench hostLog',
    env: { BRAID_ENGINE_IDLE_MS: '30000' },
  });
  try {
    const sentAt: number[] = [];
    let bytes = 0,
      events = 0,
      linesAccounted = 0,
      linesSent = 0,
      lastSent = '',
      runId = '',
      serialised = 0;
    const feed = new LogFeed((lines, startLine) => {
      serialised += JSON.stringify({
        type: 'log',
        runId,
        stepId: 'flood',
        lines,
        ...(startLine !== undefined ? { startLine } : {}),
      }).length;
      sentAt.push(performance.now());
      linesSent += lines.length;
      lastSent = lines[lines.length - 1] ?? lastSent;
    });
    let rssPeakMb = rssBeforeMb;
    const sampler = setInterval(() => {
      rssPeakMb = Math.max(rssPeakMb, process.memoryUsage().rss / MiB);
    }, 100);
    const sub = client.onEvent((e) => {
      if (e.type !== 'output' || e.id !== 'flood') return;
      bytes += e.text.length;
      events++;
      linesAccounted += (e.skippedLines ?? 0) + (e.text.match(/\n/g)?.length ?? 0);
      serialised += JSON.stringify(e.text).length; // the step's terminal: a pseudoterminal write
      feed.output(e.id, e.text, e.skippedLines);
    });
    const w = measure();
    ({ runId } = await client.run({ planFile: join(workspace, 'bench.braid.yaml') }));
    const ended = await client.whenEnded(runId);
    await new Promise((r) => setTimeout(r, 100)); // the last batch
    const m = w.end();
    clearInterval(sampler);
    sub.dispose();
    feed.dispose();
    if (ended.status !== 'succeeded') throw new Error(`the flood step ${ended.status}`);
    if (serialised === 0) throw new Error('nothing was serialised');
    let maxPerSecond = 0;
    for (let i = 0, j = 0; i < sentAt.length; i++) {
      while (sentAt[i]! - sentAt[j]! >= 1000) j++;
      maxPerSecond = Math.max(maxPerSecond, i - j + 1);
    }
    gc();
    const heapAfterMb = process.memoryUsage().heapUsed / MiB;
    if (keep.length === 0) throw new Error('unreachable'); // keeps the heap alive to the end
    return {
      ...m,
      bytes,
      events,
      linesAccounted,
      messages: sentAt.length,
      maxPerSecond,
      linesSent,
      lastSent,
      heapBeforeMb,
      heapAfterMb,
      rssBeforeMb,
      rssPeakMb,
    };
  } finally {
    await client.shutdown().catch(() => undefined);
    client.dispose();
  }
}

const f = (x: number): string => x.toFixed(2);
const mark = (ok: boolean, text: string, goal: string): string => `${text} ${ok ? '✓' : '✗'} (${goal})`;

/** Runs the flood through a big host and returns the printed table. */
export async function hostLogBench(): Promise<string> {
  const mb = Number(process.env.BRAID_BENCH_HOST_MB ?? 300);
  const logMib = Number(process.env.BRAID_BENCH_LOG_MIB ?? 50);
  const scratch = mkdtempSync(join(tmpdir(), 'braid-bench-hostlog-'));
  try {
    // 80-character lines, as fast as `yes` writes them.
    const line = `flood ${'x'.repeat(73)}`;
    const { cliPath, workspace } = await engineScratch(
      scratch,
      [
        'version: 1',
        'name: Host log bench',
        'steps:',
        '  flood:',
        `    run: yes ${line} | head -c ${logMib * MiB}`,
        '',
      ].join('\n'),
    );
    const r = await runHostChild<Measured>(__filename, 'log-child', { mb, cliPath, workspace }, mb);
    const lines = (logMib * MiB) / (line.length + 1);
    if (r.linesAccounted !== lines)
      throw new Error(`the host saw ${r.linesAccounted} lines (shown or counted as left out), not ${lines}`);
    const heapGrowth = r.heapAfterMb - r.heapBeforeMb;
    return [
      `### Host event loop: a step printing ${logMib} MiB as fast as it can, through the engine into a ~${mb} MB host`,
      '',
      '| output | wall s | engine events: count · text received | messages to the panel: all · most in any second | loop delay p99 · max, ms | loop busy, ms | JS heap after GC | RSS before → peak |',
      '|---|---|---|---|---|---|---|---|',
      `| ${logMib} MiB, ${(lines / 1000).toFixed(0)}k lines | ${f(r.wallMs / 1000)} | ${r.events} · ${(r.bytes / MiB).toFixed(1)} MiB | ${r.messages} · ${mark(r.maxPerSecond <= 60, String(r.maxPerSecond), '≤ 60/s')} | ${mark(r.delayP99 <= 10, f(r.delayP99), '≤ 10 ms')} · ${f(r.delayMax)} | ${r.busyMs.toFixed(0)} | ${mark(heapGrowth <= 16, `${r.heapBeforeMb.toFixed(0)} → ${r.heapAfterMb.toFixed(0)} MB`, '≤ +16 MB')} | ${r.rssBeforeMb.toFixed(0)} → ${r.rssPeakMb.toFixed(0)} MB |`,
      '',
      `The host reads every output event from the engine's socket (the engine batches them every 33 ms, each at most 64 KiB: the newest whole lines and a count of those left out), serialises the text as a terminal write would, and feeds the graph panel's LogFeed, which sent ${r.linesSent.toLocaleString('en-US')} of the lines (the rest were counted: the page pages them in from the log file) and last "${r.lastSent.slice(0, 12)}…". "Loop delay" is monitorEventLoopDelay at 1 ms resolution over the run, and counts time the OS gave to the engine and the step too: 2 cores.`,
    ].join('\n');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const at = process.argv.indexOf('--log-child');
  if (at >= 0) {
    const cfg = JSON.parse(process.argv[at + 1] ?? '{}') as { mb: number; cliPath: string; workspace: string };
    child(cfg.mb, cfg.cliPath, cfg.workspace).then(
      (m) => {
        process.stdout.write(`RESULT ${JSON.stringify(m)}\n`);
        process.exit(0);
      },
      (e: unknown) => {
        process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
        process.exit(1);
      },
    );
  } else {
    hostLogBench().then(
      (table) => console.log(table),
      (e: unknown) => {
        console.error(e);
        process.exitCode = 1;
      },
    );
  }
}
