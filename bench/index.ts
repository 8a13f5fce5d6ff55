// `npm run bench`: prints medians and p90s of makespan / lower bound, measured in this run.
import { bounds, randomDag, simulate, waves } from './scheduler';

const q = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]!; };
const f = (x: number) => x.toFixed(3);

async function main(): Promise<void> {
  const sizes = (process.env.BRAID_BENCH_SIZES ?? '50,500').split(',').map(Number);
  const seeds = Number(process.env.BRAID_BENCH_SEEDS ?? 30);
  console.log(`scheduler makespan ÷ lower bound max(CP, W/k); ${seeds} seeds a cell; median (p90)`);
  console.log('| steps | k | braid | fifo | waves | sequential | braid vs waves | max braid ÷ Graham |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const n of sizes) {
    for (const k of [2, 4, 8, Infinity]) {
      const r = { braid: [] as number[], fifo: [] as number[], waves: [] as number[], seq: [] as number[], speed: [] as number[], graham: [] as number[] };
      for (let seed = 1; seed <= seeds; seed++) {
        const { graph, dur } = randomDag(n, seed * 7919 + n);
        const kk = k === Infinity ? n : k;
        const b = bounds(graph, dur, kk);
        const mb = await simulate(graph, dur, kk, 'critical-path');
        const mf = await simulate(graph, dur, kk, 'fifo');
        const mw = waves(graph, dur, kk);
        r.braid.push(mb / b.lower); r.fifo.push(mf / b.lower); r.waves.push(mw / b.lower); r.seq.push(b.work / b.lower);
        r.speed.push(mw / mb); r.graham.push(mb / b.graham);
      }
      const cell = (xs: number[]) => `${f(q(xs, 0.5))} (${f(q(xs, 0.9))})`;
      console.log(`| ${n} | ${k === Infinity ? '∞' : k} | ${cell(r.braid)} | ${cell(r.fifo)} | ${cell(r.waves)} | ${cell(r.seq)} | ${f(q(r.speed, 0.5))}× | ${f(Math.max(...r.graham))} |`);
    }
  }
}

void main();
