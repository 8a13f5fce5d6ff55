// What a user waits for when they open the graph (issue #35 §3): in the real workbench (code-server +
// headless Chromium, 1600×900), from the palette opening for *Braid: Show Graph* to the first node on
// screen, beside VS Code's own *Markdown: Open Preview to the Side* of a small file timed the same way
// in the same run (the palette's typing is in both). Plans of 12 to 5,000 steps (layers of 10, each
// step needing two of the layer before), each opened RUNS times after a warm-up, the two interleaved.
// Both are seen the same way: a poll of the page's frames every POLL_MS for the first node (Braid's
// `g.node[data-step-id]`) or the preview's text, clocked by Date.now() inside the frame that has it.
// Also: when the whole graph is drawn (body[data-graph-state=rendered]), and the page's longest task
// after its script ran (goal ≤ 200 ms: it answers clicks and keys while it draws).
// Alone: `npm run build && node --import tsx bench/graphOpen.ts` (BRAID_BENCH_GRAPH_SIZES=12,300);
// BRAID_BENCH_GRAPH_BASE=/work/main times that built checkout beside this one, in turns.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { makeFixtureWorkspace } from '../test/vscode/fixtureWorkspace';
import { poll } from '../test/vscode/e2e/graphFrame';
import { runCommand } from '../test/vscode/e2e/palette';
import { openWorkbench, type Workbench } from '../test/vscode/e2e/workbench';
import { layeredPlan, openFromExplorer } from '../test/vscode/e2e/plans';
import { envInt, envList, fixed, goal, median } from './stats';

const POLL_MS = 20;
const MARKER = 'Preview marker for the bench';
/** Goals: command → first node ÷ the Markdown preview, by plan size. */
const GOALS: Readonly<Record<number, number>> = { 12: 1.1, 300: 1.3, 5000: 2 };

// In a frame, as strings (tsx's keepNames wrappers do not exist there): the frame's clock when it shows what we wait for.
const FIRST_NODE = `document.querySelector('g.node[data-step-id]') ? Date.now() : 0`;
const ALL_DRAWN = `document.body?.getAttribute('data-graph-state') === 'rendered' ? Date.now() : 0`;
const LONGEST = `Number(document.body?.getAttribute('data-longest-task-ms') ?? -1)`;
/** The graph page's milestones (webview/milestones.ts), epoch ms, 0 where not reached. */
const MILESTONES = `['nav', 'script', 'ready', 'graph'].map((n) => Number(document.body?.getAttribute('data-t-' + n) ?? 0))`;
const PREVIEW = `(document.body?.textContent ?? '').includes(${JSON.stringify(MARKER)}) ? Date.now() : 0`;

/** Polls every frame but the workbench's own until one answers `check` with a time. */
async function seen(page: Page, check: string, what: string, timeoutMs: number): Promise<number> {
  return poll(
    what,
    async () => {
      for (const f of page.frames()) {
        if (f === page.mainFrame()) continue;
        const t = (await f.evaluate(check).catch(() => 0)) as number;
        if (t > 0) return t;
      }
      return undefined;
    },
    timeoutMs,
    POLL_MS,
  );
}

const now = (wb: Workbench): Promise<number> => wb.page.evaluate(() => Date.now());

async function closeAll(wb: Workbench): Promise<void> {
  await runCommand(wb, 'View: Close All Editors');
  await poll('the editors to close', async () => (await wb.page.locator('.tabs-container .tab').count()) === 0, 10_000);
}

async function openPreview(wb: Workbench): Promise<number> {
  await closeAll(wb);
  await openFromExplorer(wb, 'notes.md');
  const t0 = await now(wb);
  await runCommand(wb, 'Markdown: Open Preview to the Side');
  return (await seen(wb.page, PREVIEW, 'the Markdown preview', 30_000)) - t0;
}

interface Opened {
  readonly first: number;
  readonly all: number;
  readonly longest: number;
  /** The page's milestones from the command: navigation, script, ready, graph message in (ms). */
  readonly parts: readonly number[];
}

async function openGraph(wb: Workbench, file: string): Promise<Opened> {
  await closeAll(wb);
  await openFromExplorer(wb, file);
  const t0 = await now(wb);
  await runCommand(wb, 'Braid: Show Graph');
  const first = await seen(wb.page, FIRST_NODE, 'the first node', 600_000);
  const all = await seen(wb.page, ALL_DRAWN, 'the whole graph', 600_000);
  // The graph page's longest task once its script had run (webview/longTasks.ts).
  let longest = -1;
  let parts: number[] = [];
  for (const f of wb.page.frames()) {
    if (f === wb.page.mainFrame()) continue;
    longest = Math.max(longest, (await f.evaluate(LONGEST).catch(() => -1)) as number);
    const m = (await f.evaluate(MILESTONES).catch(() => [])) as number[];
    if (m.some((t) => t > 0)) parts = m.map((t) => (t > 0 ? t - t0 : NaN));
  }
  return { first: first - t0, all: all - t0, longest, parts };
}

interface Build {
  readonly label: string;
  readonly wb: Workbench;
}

export async function graphOpenBench(): Promise<string> {
  const sizes = envList('BRAID_BENCH_GRAPH_SIZES', [12, 300, 1000, 5000]);
  const runs = envInt('BRAID_BENCH_GRAPH_RUNS', 3);
  // Another build to time beside this one in the same run (e.g. main's checkout, built): its own
  // workbench, the two taking turns a run, so both see the same machine.
  const base = process.env.BRAID_BENCH_GRAPH_BASE;
  const ws = makeFixtureWorkspace();
  writeFileSync(join(ws.path, 'notes.md'), `# ${MARKER}\n\nA small file, as a user previews one.\n`);
  for (const n of sizes) writeFileSync(join(ws.path, `g${n}.braid.yaml`), layeredPlan(`Graph ${n}`, n / 10, 10));
  const builds: Build[] = [];
  const rows: string[][] = [];
  try {
    const open = (extensionPath?: string): Promise<Workbench> =>
      openWorkbench({
        workspace: ws.path,
        viewport: { width: 1600, height: 900 },
        ...(extensionPath ? { extensionPath } : {}),
      });
    if (base !== undefined) builds.push({ label: base, wb: await open(base) });
    builds.push({ label: base !== undefined ? 'this build' : '', wb: await open() });
    // Warm-up: the extension activates and both webview kinds load once.
    for (const { wb } of builds) {
      await openPreview(wb);
      await openGraph(wb, `g${sizes[0]}.braid.yaml`);
    }
    for (const n of sizes) {
      const seen = builds.map(() => ({
        md: [] as number[],
        first: [] as number[],
        all: [] as number[],
        longest: [] as number[],
        ratios: [] as number[],
      }));
      for (let r = 0; r < runs; r++) {
        // Who goes first alternates, so neither always runs right after the other's drawing.
        const order = builds.map((_, i) => i);
        if (r % 2 === 1) order.reverse();
        for (const i of order) {
          const { label, wb } = builds[i]!;
          const m = await openPreview(wb);
          const g = await openGraph(wb, `g${n}.braid.yaml`);
          const s = seen[i]!;
          s.md.push(m);
          s.first.push(g.first);
          s.all.push(g.all);
          s.longest.push(g.longest);
          s.ratios.push(g.first / m);
          console.error(
            `[bench] graph ${n} steps${label ? ` (${label})` : ''}, run ${r}: preview ${m} ms, first node ${g.first} ms, all ${g.all} ms, longest task ${g.longest} ms; page nav ${g.parts[0]}, script ${g.parts[1]}, ready ${g.parts[2]}, graph in ${g.parts[3]} ms`,
          );
        }
      }
      builds.forEach(({ label }, i) => {
        const { md, first, all, longest, ratios } = seen[i]!;
        const ratio = median(ratios);
        const target = GOALS[n];
        rows.push([
          `${n.toLocaleString('en')} steps${label ? ` (${label})` : ''}`,
          `${median(md)} ms`,
          `${median(first)} ms (${Math.min(...first)}–${Math.max(...first)})`,
          target !== undefined
            ? goal(`${fixed(ratio, 2)} ×`, ratio <= target, `≤ ${target} ×`)
            : `${fixed(ratio, 2)} ×`,
          `${median(all)} ms`,
          goal(`${Math.max(...longest)} ms`, Math.max(...longest) <= 200, '≤ 200 ms'),
          String(runs),
        ]);
      });
    }
  } finally {
    for (const { wb } of builds) await wb.close();
    ws.remove();
  }
  return [
    '### Graph open in the workbench (code-server 1600×900: palette → first node, beside *Markdown: Open Preview to the Side* of a small file, same run, medians)',
    `| plan | Markdown preview | Braid: Show Graph → first node | ÷ preview | → whole graph drawn | longest task in the page, max | runs |`,
    `|---|---|---|---|---|---|---|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

if (require.main === module) {
  graphOpenBench().then(
    (t) => console.log(t),
    (e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    },
  );
}
