// planJsonSchema(): the JSON schema editors get for plan files must be valid JSON Schema, name every
// key the zod schema has, and agree with it on which keys a plan must (and must not) have.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
// ajv: the common JSON Schema validator (editors use it too); a pinned devDependency.
import Ajv2020 from 'ajv/dist/2020';
import { parse } from 'yaml';
import { planJsonSchema, planSchema } from '../../src/core/plan/compile';
import { describeSchema, keyDocsFrom } from '../../src/core/plan/keyDocs';
import { agentSchema, PLAN_FIELDS, STEP_FIELDS, STEP_ONLY_FIELDS, stepSchema } from '../../src/core/plan/schema';

type Json = Record<string, unknown>;
const schema = planJsonSchema() as Json;
const obj = (v: unknown): Json => {
  assert.equal(typeof v, 'object', `expected an object, got ${JSON.stringify(v)}`);
  return v as Json;
};
const props = (s: unknown): string[] => Object.keys(obj(obj(s).properties)).sort();

// The example plan of plan-format.md (copied into the fixtures): the contract's own good plan.
const specExample = (): unknown =>
  parse(readFileSync(join(__dirname, '..', 'fixtures', 'plans', 'spec-example.braid.yaml'), 'utf8'));

describe('planJsonSchema()', () => {
  it('is valid JSON Schema (2020-12) that compiles', () => {
    assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    assert.equal(ajv.validateSchema(schema), true, JSON.stringify(ajv.errors));
    assert.doesNotThrow(() => ajv.compile(schema));
  });

  it('names every top-level, step, defaults and agent key of the zod schema, and no others', () => {
    assert.deepEqual(props(schema), Object.keys(planSchema.shape).sort());
    const steps = obj(obj(schema.properties).steps);
    assert.deepEqual(props(steps.additionalProperties), Object.keys(stepSchema.shape).sort());
    const defaults = Object.keys(stepSchema.shape)
      .filter((k) => !(k in STEP_ONLY_FIELDS))
      .sort();
    assert.deepEqual(props(obj(schema.properties).defaults), defaults);
    assert.deepEqual(
      props(obj(obj(schema.properties).agents).additionalProperties),
      Object.keys(agentSchema.shape).sort(),
    );
    assert.equal(schema.additionalProperties, false, 'unknown top-level keys are flagged in editors too');
    assert.equal(obj(steps.additionalProperties).additionalProperties, false);
  });

  it('agrees with the zod schema on good and bad plans', () => {
    const validate = new Ajv2020({ strict: false }).compile(schema);
    const cases: Array<[string, unknown, boolean]> = [
      ['the spec example', specExample(), true],
      ['the smallest plan', { version: 1, steps: { a: { run: 'x' } } }, true],
      ['no version', { steps: { a: { run: 'x' } } }, false],
      ['no steps', { version: 1 }, false],
      ['version 2', { version: 2, steps: { a: { run: 'x' } } }, false],
      ['an unknown top-level key', { version: 1, stepz: {}, steps: { a: { run: 'x' } } }, false],
      ['an unknown step key', { version: 1, steps: { a: { run: 'x', nedds: [] } } }, false],
      ['needs in defaults', { version: 1, defaults: { needs: ['a'] }, steps: { a: { run: 'x' } } }, false],
      [
        'an agent without command',
        { version: 1, agents: { r: { env: {} } }, steps: { a: { prompt: 'x', agent: 'r' } } },
        false,
      ],
      ['a bad step id', { version: 1, steps: { '9a': { run: 'x' } } }, false],
      ['retries out of range', { version: 1, steps: { a: { run: 'x', retries: 11 } } }, false],
      [
        'best-of with named alternatives',
        {
          version: 1,
          steps: {
            a: {
              prompt: 'x',
              pick: 'check',
              check: 'y',
              alternatives: [{ agent: 'codex' }, { model: 'm', env: { A: 1 } }],
            },
          },
        },
        true,
      ],
      ['best-of out of range', { version: 1, steps: { a: { run: 'x', 'best-of': 11 } } }, false],
      [
        'an unknown key in an alternative',
        { version: 1, steps: { a: { run: 'x', alternatives: [{ agnt: 'x' }, {}] } } },
        false,
      ],
      ['best-of in defaults', { version: 1, defaults: { 'best-of': 2 }, steps: { a: { run: 'x' } } }, false],
    ];
    for (const [why, plan, good] of cases) {
      assert.equal(planSchema.safeParse(plan).success, good, `zod: ${why}`);
      assert.equal(validate(plan), good, `JSON schema: ${why} ${JSON.stringify(validate.errors)}`);
    }
  });

  it("every plan and step key has hover text from plan-format.md's tables (the docs stay true to the code)", () => {
    const docs = keyDocsFrom(readFileSync(join(__dirname, '..', '..', 'docs', 'plan-format.md'), 'utf8'));
    const undocumented = [
      ...Object.keys(PLAN_FIELDS)
        .filter((k) => !docs.plan.has(k))
        .map((k) => `top level: ${k}`),
      ...[...Object.keys(STEP_FIELDS), ...Object.keys(STEP_ONLY_FIELDS)]
        .filter((k) => !docs.step.has(k))
        .map((k) => `step: ${k}`),
    ];
    assert.deepEqual(undocumented, [], 'keys the schema takes but the docs do not describe');
    const described = describeSchema(planJsonSchema(), docs) as Json;
    const top = obj(described.properties);
    assert.match(String(obj(top.concurrency).description), /most steps running at once/);
    const step = obj(obj(obj(top.steps).additionalProperties).properties);
    assert.match(String(obj(step.writes).description), /exclusive locks/);
    assert.match(String(obj(step.copy).description), /git-ignored files copied in/);
    assert.match(String(obj(obj(obj(top.defaults).properties).timeout).description), /process tree is killed/);
  });
});
