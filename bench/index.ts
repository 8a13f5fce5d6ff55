// `npm run bench`: every part prints its tables, measured in this run, goals beside the figures.
// BRAID_BENCH_ONLY=makespan,locks runs some parts (many: 1,000 and 10,000 `true` steps through out/cli.js beside make -j4; export: a 1,000-step plan to GitHub Actions; bestof: best-of pick first with real processes; tracing: a 1,000-step run traced and not); BRAID_BENCH_WORKTREES=0 skips the git part.
// `webview` needs a build (out/webview) and Chromium; `workbench` and `graphopen` (the graph opened from the
// palette beside the Markdown preview, 12 to 5,000 steps) a build and code-server
// (scripts/setup-vscode.sh); `host` builds its own CLI bundle.
import { cpus } from 'node:os';
import { benchBestOf } from './bestOf';
import { benchBookkeeping } from './bookkeeping';
import { benchCliStart } from './cliStart';
import { benchExport } from './exportPlan';
import { benchForkThread } from './forkThread';
import { hostBlockBench } from './hostBlock';
import { hostLogBench } from './hostLog';
import { benchLanguageService } from './languageService';
import { benchLatency } from './latency';
import { benchLocks } from './locks';
import { benchJsonFlood } from './jsonFlood';
import { benchMakespan } from './makespan';
import { benchManySteps } from './manySteps';
import { benchPlanFuzz, benchPlanStarve } from './planFuzz';
import { benchOrphans } from './orphans';
import { benchPlanLoad } from './planLoad';
import { benchRateLimits } from './rateLimits';
import { benchRealMakespan } from './realMakespan';
import { benchResolveConflict } from './resolveConflict';
import { benchTracing } from './tracing';
import { webviewBench } from './webview';
import { workbenchLatencyBench } from './workbenchLatency';
import { graphOpenBench } from './graphOpen';
import { benchWorktrees } from './worktrees';
import { benchDecisions, benchLandingSnapshot } from './landing';

// The parts that return their tables instead of printing them.
const printed = (part: () => Promise<string>) => async (): Promise<void> => {
  console.log(`\n${await part()}`);
};

const PARTS: ReadonlyArray<readonly [string, () => Promise<void>]> = [
  ['makespan', benchMakespan],
  ['real', benchRealMakespan],
  ['ratelimits', benchRateLimits],
  ['bookkeeping', benchBookkeeping],
  ['many', benchManySteps],
  ['latency', benchLatency],
  ['fork', benchForkThread],
  ['load', benchPlanLoad],
  ['cli', benchCliStart],
  ['language', benchLanguageService],
  ['fuzz', benchPlanFuzz],
  ['starve', benchPlanStarve],
  ['worktrees', benchWorktrees],
  ['snapshot', benchLandingSnapshot],
  ['decisions', benchDecisions],
  ['locks', benchLocks],
  ['export', benchExport],
  ['orphans', benchOrphans],
  ['flood', benchJsonFlood],
  ['bestof', benchBestOf],
  ['resolve', benchResolveConflict],
  ['tracing', benchTracing],
  ['webview', printed(webviewBench)],
  ['workbench', printed(workbenchLatencyBench)],
  ['graphopen', printed(graphOpenBench)],
  ['host', printed(hostBlockBench)],
  ['hostlog', printed(hostLogBench)],
];

async function main(): Promise<void> {
  const only = process.env.BRAID_BENCH_ONLY?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = only?.filter((o) => !PARTS.some(([name]) => name === o)) ?? [];
  if (unknown.length > 0)
    throw new Error(`BRAID_BENCH_ONLY: unknown part ${unknown.join(', ')}; parts: ${PARTS.map(([n]) => n).join(', ')}`);
  const skipGit = process.env.BRAID_BENCH_WORKTREES === '0';
  console.log(
    `Braid benchmarks, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'})`,
  );
  const t = performance.now();
  for (const [name, run] of PARTS) {
    if (only && !only.includes(name)) continue;
    if (name === 'worktrees' && skipGit) {
      console.log('\n### Worktrees: skipped (BRAID_BENCH_WORKTREES=0)');
      continue;
    }
    const p = performance.now();
    await run();
    console.error(`[bench] ${name}: ${((performance.now() - p) / 1000).toFixed(1)} s`);
  }
  console.error(`[bench] total: ${((performance.now() - t) / 1000).toFixed(1)} s`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
