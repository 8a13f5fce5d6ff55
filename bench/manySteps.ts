// Many short steps (issue 35 §1): 1,000 `true` steps at concurrency 4 through the CLI as shipped
// (out/cli.js, `braid run`), beside `make -j4` of a Makefile of the same DAG and `xargs -P4` of the
// same commands, all in this run; then 10 chains × 100 steps against make of the same chains; then
// 10,000 independent steps, to see the cost a step stay flat. Peak RSS is the engine process's
// (GNU time's "Maximum resident set size": the CLI is one Node process, its steps are children
// that exit at once and are not counted by getrusage's RUSAGE_CHILDREN high-water of the CLI).
// BRAID_BENCH_CLI_BASE=path/to/other/cli.js adds a column for another build, run alternately with
// this one (before/after figures side by side under the same load).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { envInt, fixed, goal, median, table } from './stats';

const K = 4;
const CLI = resolve(__dirname, '..', 'out', 'cli.js');
const TIME = '/usr/bin/time';

/** A DAG: `chains` chains of `length` steps (1 × n: n independent steps when length = 1). */
interface Shape {
  label: string;
  chains: number;
  length: number;
}
const id = (c: number, i: number): string => `s${c}_${i}`;

function plan(s: Shape): string {
  let y = `version: 1\nname: many\nconcurrency: ${K}\ndefaults:\n  isolation: shared\nsteps:\n`;
  for (let c = 0; c < s.chains; c++)
    for (let i = 0; i < s.length; i++) {
      y += `  ${id(c, i)}:\n    run: "true"\n${i > 0 ? `    needs: [${id(c, i - 1)}]\n` : ''}`;
    }
  return y;
}

function makefile(s: Shape): string {
  const all: string[] = [];
  let m = '';
  for (let c = 0; c < s.chains; c++)
    for (let i = 0; i < s.length; i++) {
      all.push(id(c, i));
      m += `${id(c, i)}:${i > 0 ? ` ${id(c, i - 1)}` : ''}\n\t@true\n`;
    }
  return `all: ${all.join(' ')}\n.PHONY: all ${all.join(' ')}\n${m}`;
}

/** Wall seconds and, under GNU time, peak RSS in MB of one command. */
function timed(cmd: string, args: string[], cwd: string): { s: number; rssMb: number } {
  const t = performance.now();
  const r = spawnSync(TIME, ['-f', '%M', cmd, ...args], { cwd, encoding: 'utf8', maxBuffer: 64 << 20 });
  const s = (performance.now() - t) / 1000;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr.slice(-500)}`);
  const kb = Number(r.stderr.trim().split('\n').pop());
  return { s, rssMb: kb / 1024 };
}

async function folder(root: string, name: string, s: Shape): Promise<string> {
  const d = join(root, name);
  await mkdir(d, { recursive: true });
  await writeFile(join(d, 'many.braid.yaml'), plan(s));
  await writeFile(join(d, 'Makefile'), makefile(s));
  await writeFile(join(d, 'cmds'), 'true\n'.repeat(s.chains * s.length));
  return d;
}

/**
 * One `braid run` in a workspace of its own, left in place until the part ends. Not removed between
 * runs: on this machine's ext4 (mounted without a journal) a new file's inode is found by skipping
 * every inode freed in the last 60–300 s of its group (the kernel's `recently_deleted`), so after
 * one run's 2,000+ files were deleted each file the next run made cost ~0.8 ms, in the kernel,
 * on the engine's thread (45 % of its CPU in `perf`) — a cost of the bench's clean-up, not of a
 * run: a user's past runs stay until `braid clean`. make and xargs make no files.
 */
function braid(cli: string, dir: string): { s: number; rssMb: number } {
  const ws = mkdtempSync(join(dir, 'ws-'));
  copyFileSync(join(dir, 'many.braid.yaml'), join(ws, 'many.braid.yaml'));
  return timed(process.execPath, [cli, 'run', 'many.braid.yaml'], ws);
}

export async function benchManySteps(): Promise<void> {
  const runs = envInt('BRAID_BENCH_MANY_RUNS', 3);
  const base = process.env.BRAID_BENCH_CLI_BASE;
  if (!existsSync(CLI)) throw new Error(`many steps: ${CLI} is missing (npm run build first)`);
  if (base !== undefined && !existsSync(base)) throw new Error(`BRAID_BENCH_CLI_BASE: ${base} is missing`);
  console.log(
    `\n### Many short steps (\`run: "true"\`, concurrency ${K}, \`braid run\` of out/cli.js; medians of ${runs})\n`,
  );
  console.log(
    'Anchors measured in this run: `make -j4` of a Makefile of the same DAG, `xargs -P4` of the same commands.',
  );
  console.log(
    'Goals: ≤ 3 × make -j4; peak RSS of the engine ≤ 150 MB; 10,000 steps ≤ 1.2 × 10 × the 1,000-step time (linear).\n',
  );
  const root = await mkdtemp(join(tmpdir(), 'braid-bench-many-'));
  const rows: string[][] = [];
  try {
    const shapes: Shape[] = [
      { label: '1,000 independent', chains: 1000, length: 1 },
      { label: '10 chains × 100', chains: 10, length: 100 },
    ];
    let perStep1k = NaN;
    for (const s of shapes) {
      const d = await folder(root, `${s.chains}x${s.length}`, s);
      const make: number[] = [],
        xargs: number[] = [],
        ours: number[] = [],
        rss: number[] = [],
        theirs: number[] = [];
      for (let i = 0; i < runs; i++) {
        make.push(timed('make', ['-s', `-j${K}`, '-f', 'Makefile'], d).s);
        xargs.push(timed('xargs', [`-P${K}`, '-n1', '-a', 'cmds', 'sh', '-c'], d).s);
        const b = braid(CLI, d);
        ours.push(b.s);
        rss.push(b.rssMb);
        if (base !== undefined) theirs.push(braid(base, d).s);
      }
      const ratio = median(ours) / median(make);
      if (s.length === 1) perStep1k = median(ours) / 1000;
      rows.push([
        s.label,
        `${fixed(median(make), 2)} s`,
        `${fixed(median(xargs), 2)} s`,
        `${fixed(median(ours), 2)} s`,
        goal(`${fixed(ratio, 1)} ×`, ratio <= 3, '≤ 3 ×'),
        goal(`${fixed(Math.max(...rss), 0)} MB`, Math.max(...rss) <= 150, '≤ 150 MB'),
        ...(base !== undefined ? [`${fixed(median(theirs), 2)} s (${fixed(median(theirs) / median(make), 1)} ×)`] : []),
      ]);
    }
    // 10,000 steps: once (it takes a while), against ten times the 1,000-step cost a step.
    const big: Shape = { label: '10,000 independent', chains: 10000, length: 1 };
    const d = await folder(root, 'big', big);
    const make = timed('make', ['-s', `-j${K}`, '-f', 'Makefile'], d).s;
    const xargs = timed('xargs', [`-P${K}`, '-n1', '-a', 'cmds', 'sh', '-c'], d).s;
    const b = braid(CLI, d);
    const growth = b.s / (perStep1k * 10000);
    rows.push([
      big.label,
      `${fixed(make, 2)} s`,
      `${fixed(xargs, 2)} s`,
      `${fixed(b.s, 2)} s`,
      `${fixed(b.s / make, 1)} × (÷ 10 × the 1,000: ${goal(fixed(growth, 2), growth <= 1.2, '≤ 1.2')})`,
      `${fixed(b.rssMb, 0)} MB`,
      ...(base !== undefined ? [`${fixed(braid(base, d).s, 2)} s`] : []),
    ]);
    table(
      [
        'steps',
        'make -j4',
        'xargs -P4',
        'braid',
        'braid ÷ make',
        'braid peak RSS',
        ...(base !== undefined ? ['base build'] : []),
      ],
      rows,
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
