import { readFileSync } from 'node:fs';
import { Lexer, Parser, Composer } from "yaml";
import { prescan } from '../src/core/plan/nesting';
import { loadPlan } from '../src/core/plan/load';
import { compilePlan } from '../src/core/plan/compile';
const file = process.argv[2];
const text = readFileSync(file, 'utf8');
const t = (name: string, f: () => unknown) => { const a = performance.now(); f(); console.log(name.padEnd(12), (performance.now() - a).toFixed(0)); };
for (let k = 0; k < 2; k++) {
t('lex', () => { let n = 0; for (const _ of new Lexer().lex(text)) n++; });
t('prescan', () => prescan(text));
t('parse', () => { let n = 0; for (const _ of new Parser().parse(text)) n++; });
t('loadPlan', () => loadPlan(file, text));
t('compile', () => compilePlan(file, text));
}
