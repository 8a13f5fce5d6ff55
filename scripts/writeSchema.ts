// Writes out/plan.schema.json from the plan's zod schema: package.json contributes it to JSON and
// YAML editors (completion and hover on plan keys), so it must exist in every build and the .vsix.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { planJsonSchema } from '../src/core/plan/compile';

const out = join(process.cwd(), 'out', 'plan.schema.json'); // npm scripts run at the project root
mkdirSync(join(out, '..'), { recursive: true });
writeFileSync(out, `${JSON.stringify({ title: 'Braid plan (*.braid.yaml)', ...planJsonSchema() }, null, 2)}\n`);
