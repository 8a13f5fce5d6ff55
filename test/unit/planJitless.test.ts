// CompileOptions.jitless (the CLI's one-shot check, issue 35) parses with zod's interpreter instead of
// the parsers zod generates: the same plan must come out the same, the same problems at the same
// places, whichever way it was checked.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compilePlan } from '../../src/core/plan/compile';

const ROOT = join(__dirname, '..', '..');
const plans: Array<[string, string]> = [
  ...readdirSync(join(ROOT, 'examples')).map((f) => join(ROOT, 'examples', f)),
  join(ROOT, 'test', 'fixtures', 'plans', 'spec-example.braid.yaml'),
].map((f) => [f, readFileSync(f, 'utf8')]);
// Broken on purpose: every kind of issue the schema phase maps (types, enums, unknown and bad keys,
// durations, a bad step id, agents, a whole-plan problem).
const broken = `version: 1
concurrency: 0
defaults:
  timeout: soon
  needs: a
agents:
  mine: { command: 3 }
steps:
  a: { run: 3, isolation: sideways, retries: 11 }
  "1b": { run: "true", tymeout: 5 }
  c: { prompt: hi, matrix: { k: [] }, best-of: 1 }
  d: 7
`;

describe('compilePlan: jitless', () => {
  for (const [file, text] of [...plans, ['broken.braid.yaml', broken] as [string, string]]) {
    it(`${file.startsWith(ROOT) ? file.slice(ROOT.length + 1) : file}: the same graph and diagnostics`, () => {
      const jit = compilePlan(file, text, { isGit: true });
      const jitless = compilePlan(file, text, { isGit: true, jitless: true });
      assert.deepEqual(jitless, jit);
      if (file === 'broken.braid.yaml') assert.ok(jit.diagnostics.length >= 8, JSON.stringify(jit.diagnostics));
      else if (file.includes('examples')) assert.ok(jit.graph, JSON.stringify(jit.diagnostics));
    });
  }
});
