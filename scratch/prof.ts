import { readFileSync } from 'node:fs';
import { compilePlan } from '../src/core/plan/compile';
const file = process.argv[2];
const text = readFileSync(file, 'utf8');
for (let k = 0; k < Number(process.argv[3] ?? 4); k++) { const a = performance.now(); compilePlan(file, text); console.log((performance.now() - a).toFixed(0)); }
