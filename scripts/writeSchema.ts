// Writes out/plan.schema.json from the plan's zod schema: package.json contributes it to JSON and
// YAML editors (completion and hover on plan keys), so it must exist in every build and the .vsix.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { planJsonSchema } from '../src/core/plan/compile';
import { describeSchema, keyDocsFrom } from '../src/core/plan/keyDocs';

const out = join(process.cwd(), 'out', 'plan.schema.json'); // npm scripts run at the project root
mkdirSync(join(out, '..'), { recursive: true });
// Hover text is the format's own tables, so the editor says what the docs say.
const docs = keyDocsFrom(readFileSync(join(process.cwd(), 'docs', 'plan-format.md'), 'utf8'));
writeFileSync(
  out,
  `${JSON.stringify({ title: 'Braid plan (*.braid.yaml)', ...describeSchema(planJsonSchema(), docs) }, null, 2)}\n`,
);
