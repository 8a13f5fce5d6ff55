import { readFileSync } from 'node:fs';
import { Lexer, Parser } from 'yaml';
import { prescan } from '../src/core/plan/nesting';
import { loadPlan } from '../src/core/plan/load';
import { checkSchema } from '../src/core/plan/schemaCheck';
import { compilePlan } from '../src/core/plan/compile';
const file = process.argv[2];
const text = readFileSync(file, 'utf8');
const best = new Map<string, number[]>();
const t = (name: string, f: () => unknown) => { const c = process.cpuUsage(); const a = performance.now(); f(); const w = performance.now() - a; const u = process.cpuUsage(c); (best.get(name) ?? best.set(name, []).get(name)!).push(Math.min(w, (u.user + u.system) / 1000)); };
for (let k = 0; k < Number(process.argv[3] ?? 5); k++) {
  t('lex', () => { let n = 0; for (const _ of new Lexer().lex(text)) n++; });
  t('prescan', () => prescan(text));
  t('parse(cst)', () => { let n = 0; for (const _ of new Parser().parse(text)) n++; });
  let lp: any;
  t('loadPlan', () => (lp = loadPlan(file, text)));
  t('checkSchema', () => checkSchema(lp));
  t('compile', () => compilePlan(file, text));
}
for (const [k, v] of best) console.log(k.padEnd(12), Math.min(...v).toFixed(0), 'median', v.sort((a,b)=>a-b)[v.length>>1].toFixed(0));
