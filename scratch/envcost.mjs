import { readFileSync } from 'node:fs';
import * as nodeY from '/work/wt/values/node_modules/yaml/dist/index.js';
import * as brY from '/work/wt/values/node_modules/yaml/browser/index.js';
const text = readFileSync(process.argv[2], 'utf8');
const r = { node: [], browser: [] };
for (let k = 0; k < 6; k++) for (const [name, Y] of [['node', nodeY], ['browser', brY]]) {
  const a = process.cpuUsage(); let n = 0; for (const _ of new Y.Parser().parse(text)) n++; const u = process.cpuUsage(a); r[name].push((u.user + u.system) / 1000);
}
for (const [k, v] of Object.entries(r)) console.log(k, v.map((x) => x.toFixed(0)).join(' '), 'min', Math.min(...v).toFixed(0));
