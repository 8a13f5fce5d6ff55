// Planning by competition with real fake-agent processes: N drafts drafted at once (each waits at a
// barrier the others must reach), one repaired and one dropped, the side-by-side table, keeping
// one by --keep, by the user, later from disk, or by a judge whose answer is parsed strictly.
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { planCommand, type PlanIo } from '../../src/cli/commands/plan';
import { draftRace } from '../../src/core/planning/draftRace';

const PLANNER = resolve(__dirname, '../fixtures/agents/fake-planner.mjs');
const JUDGE = resolve(__dirname, '../fixtures/agents/fake-judge.mjs');
const planner = `'${process.execPath}' '${PLANNER}'`;
const judge = `'${process.execPath}' '${JUDGE}'`;

function tempDir(): string {
  return realpathSync(mkdtempSync(join(tmpdir(), 'braid-planbest-')));
}

interface Braid {
  code: number;
  stdout: string;
  stderr: string;
}

/** `braid plan ARGS` in-process with `env` added to the agents' environment; `answers` make it a terminal. */
async function braidPlan(
  args: string[],
  env: Record<string, string>,
  answers?: string[],
): Promise<Braid & { asked: string[] }> {
  let stdout = '';
  let stderr = '';
  const asked: string[] = [];
  const io: PlanIo = {
    out: (s) => {
      stdout += s;
    },
    err: (s) => {
      stderr += s;
    },
    ...(answers
      ? {
          ask: async (q: string) => {
            asked.push(q);
            return answers.shift();
          },
        }
      : {}),
  };
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    return { code: await planCommand(args, io), stdout, stderr, asked };
  } finally {
    for (const k of Object.keys(env))
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
  }
}

const plannerEnv = (dir: string, modes: string, extra: Record<string, string> = {}) => ({
  FAKE_PLANNER_MODE: modes,
  FAKE_PLANNER_STATE: join(dir, '.state'),
  FAKE_PLANNER_PROMPTS: join(dir, '.prompts'),
  ...extra,
});
const drafts = (dir: string): string[] =>
  readdirSync(dir)
    .filter((n) => /\.draft-\d+\./.test(n))
    .sort();

describe('planning by competition: draftRace', function () {
  this.timeout(60_000);

  it('drafts three plans at once (each waits until all three started), repairs one, drops one, names each file and shape', async () => {
    const dir = tempDir();
    const barrier = join(dir, '.barrier');
    const seen: string[] = [];
    const race = await draftRace({
      goal: 'Lint, then build',
      workspace: dir,
      count: 3,
      agents: [[process.execPath, PLANNER]],
      env: {
        ...process.env,
        ...plannerEnv(dir, 'wide,invalid-then-valid,invalid', {
          FAKE_PLANNER_BARRIER: barrier,
          FAKE_PLANNER_BARRIER_COUNT: '3',
        }),
      },
      onProgress: (draft, p) => {
        if (p.kind === 'validated') seen.push(`${draft}:${p.errors}`);
      },
    });
    assert.equal(race.problem, undefined);
    // Drafted one after another, the first would wait for the others at the barrier and fail.
    assert.deepEqual(readdirSync(barrier).sort(), ['started-1', 'started-2', 'started-3']);
    const [one, two, three] = race.drafts;
    assert.equal(one!.result.ok, true, JSON.stringify(one!.result.diagnostics));
    assert.equal(one!.result.attempts, 1);
    assert.equal(one!.result.file, join(dir, 'plan.draft-1.braid.yaml'));
    assert.deepEqual(one!.shape, { steps: 3, criticalPath: 2, parallelism: 1.5, agents: [] });
    assert.equal(two!.result.ok, true, 'the invalid first draft was repaired');
    assert.equal(two!.result.attempts, 2);
    assert.match(
      readFileSync(join(dir, '.prompts/draft-2-prompt-2.txt'), 'utf8'),
      /nedds: \[lint\]/,
      'draft 2 alone was shown its problems',
    );
    assert.deepEqual(two!.shape, { steps: 2, criticalPath: 2, parallelism: 1, agents: [] });
    assert.equal(three!.result.ok, false);
    assert.equal(three!.shape, undefined);
    assert.equal(three!.result.diagnostics[0]!.code, 'unknown-key');
    assert.match(
      readFileSync(join(dir, '.prompts/draft-3-prompt-1.txt'), 'utf8'),
      /Write the plan to this file: plan\.draft-3\.braid\.yaml/,
    );
    assert.deepEqual(
      race.drafts.map((d) => d.agent),
      ['fake-planner', 'fake-planner', 'fake-planner'],
    );
    assert.deepEqual(seen.sort(), ['1:0', '2:0', '2:1', '3:1', '3:1']);
    assert.equal(existsSync(join(dir, 'plan.braid.yaml')), false, 'nothing is kept by the race');
  });

  it('checks every agent before any runs: an unknown third agent costs no draft', async () => {
    const dir = tempDir();
    const race = await draftRace({
      goal: 'g',
      workspace: dir,
      count: 3,
      agents: [[process.execPath, PLANNER], 'cladue'],
      env: { ...process.env, ...plannerEnv(dir, 'valid') },
    });
    assert.equal(race.drafts.length, 0);
    assert.equal(race.problem?.code, 'agent-invalid');
    assert.match(race.problem.message, /unknown agent cladue; did you mean `claude`\?/);
    assert.deepEqual(drafts(dir), []);
    assert.equal(existsSync(join(dir, '.state-1')), false);
  });
});

describe('planning by competition: braid plan --best-of', function () {
  this.timeout(60_000);

  it('--keep 2: the table shows every draft, draft 2 becomes the plan, the others are removed', async () => {
    const dir = tempDir();
    const r = await braidPlan(
      ['Lint, then build', '--best-of', '3', '--agent', planner, '--workspace', dir, '--keep', '2'],
      plannerEnv(dir, 'valid,wide,invalid'),
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${join(dir, 'plan.braid.yaml')}\n`);
    assert.match(
      readFileSync(join(dir, 'plan.braid.yaml'), 'utf8'),
      /name: Planned draft 2\n[\s\S]*needs: \[lint, test\]/,
    );
    assert.deepEqual(drafts(dir), []);
    assert.match(r.stderr, /^#\s+agent\s+steps\s+critical path\s+parallel\s+valid\s+file$/m);
    assert.match(r.stderr, /^1\s+fake-planner\s+2\s+2\s+≈ 1\.0\s+yes\s+\S*plan\.draft-1\.braid\.yaml$/m);
    assert.match(r.stderr, /^2\s+fake-planner\s+3\s+2\s+≈ 1\.5\s+yes\s+/m);
    assert.match(
      r.stderr,
      /^3\s+fake-planner\s+–\s+–\s+–\s+no\s+\S*plan\.draft-3\.braid\.yaml\n\s+└ steps\.build\.nedds: unknown key `nedds`/m,
    );
    assert.match(r.stderr, /kept draft 2 as .*plan\.braid\.yaml; removed 2 other drafts/);
  });

  it('--keep-drafts leaves the others; --keep of an invalid draft keeps nothing and exits 1', async () => {
    const dir = tempDir();
    const bad = await braidPlan(
      ['g', '--best-of', '2', '--agent', planner, '--workspace', dir, '--keep', '2'],
      plannerEnv(dir, 'valid,invalid'),
    );
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /--keep 2: draft 2 is not valid \(valid: 1\)/);
    assert.equal(existsSync(join(dir, 'plan.braid.yaml')), false);
    assert.deepEqual(drafts(dir), ['plan.draft-1.braid.yaml', 'plan.draft-2.braid.yaml']);
    const again = await braidPlan(
      ['g', '--best-of', '2', '--agent', planner, '--workspace', dir, '--keep', '1'],
      plannerEnv(dir, 'valid'),
    );
    assert.equal(again.code, 2, 'drafts of an earlier run are not overwritten without --force');
    assert.match(
      again.stderr,
      /plan\.draft-1\.braid\.yaml and 1 other draft exist \(left by an earlier braid plan --best-of\); keep one with: braid plan --keep N --out/,
    );
    const kept = await braidPlan(
      ['g', '--best-of', '2', '--agent', planner, '--workspace', dir, '--keep', '1', '--keep-drafts', '--force'],
      plannerEnv(dir, 'valid'),
    );
    assert.equal(kept.code, 0, kept.stderr);
    assert.deepEqual(drafts(dir), ['plan.draft-2.braid.yaml']);
    assert.match(kept.stderr, /the other drafts stay: .*plan\.draft-2\.braid\.yaml/);
  });

  it('on a terminal it asks which to keep, again after a wrong answer', async () => {
    const dir = tempDir();
    const r = await braidPlan(
      ['g', '--best-of', '3', '--agent', planner, '--workspace', dir],
      plannerEnv(dir, 'valid,invalid,wide'),
      ['2', '3'],
    );
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.asked, [
      'keep which draft? (1, 3; empty keeps none) ',
      'keep which draft? (1, 3; empty keeps none) ',
    ]);
    assert.match(r.stderr, /"2" is not a valid draft; answer one of 1, 3/);
    assert.match(readFileSync(join(dir, 'plan.braid.yaml'), 'utf8'), /name: Planned draft 3/);
    assert.deepEqual(drafts(dir), []);
  });

  it('not a terminal and no --keep: the valid drafts stay, with the command that keeps one; that command keeps it', async () => {
    const dir = tempDir();
    const out = join(dir, 'plans', 'lint.braid.yaml');
    const r = await braidPlan(
      ['g', '--best-of', '2', '--agent', planner, '--workspace', dir, '--out', out],
      plannerEnv(dir, 'valid,wide'),
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stdout,
      `${join(dir, 'plans', 'lint.draft-1.braid.yaml')}\n${join(dir, 'plans', 'lint.draft-2.braid.yaml')}\n`,
    );
    assert.match(
      r.stderr,
      /2 valid drafts left to choose from; keep one with: braid plan --keep N --out \S*plans\/lint\.braid\.yaml \(N one of 1, 2\)/,
    );
    assert.equal(existsSync(out), false);
    const k = await braidPlan(['--keep', '2', '--out', out, '--workspace', dir], {});
    assert.equal(k.code, 0, k.stderr);
    assert.equal(k.stdout, `${out}\n`);
    assert.match(readFileSync(out, 'utf8'), /name: Planned draft 2/);
    assert.deepEqual(readdirSync(join(dir, 'plans')), ['lint.braid.yaml']);
    const none = await braidPlan(['--keep', '1', '--out', join(dir, 'other.braid.yaml'), '--workspace', dir], {});
    assert.equal(none.code, 1);
    assert.match(none.stderr, /no draft 1 of .*other\.braid\.yaml/);
  });

  it("--judge: the judge gets the goal and each valid draft's YAML; its pick is kept and its reason printed", async () => {
    const dir = tempDir();
    const prompt = join(dir, '.judge-prompt');
    const r = await braidPlan(
      ['Lint and test, then build', '--best-of', '3', '--agent', planner, '--workspace', dir, '--judge', judge],
      plannerEnv(dir, 'valid,invalid,wide', {
        FAKE_JUDGE_PROMPT: prompt,
        FAKE_JUDGE_REPLY:
          'Draft 3 runs lint and test at once.\nPICK: 3\nREASON: It tests before building, \u001b[31mand in parallel.\n',
      }),
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      /the judge \(fake-judge\) picks draft 3: It tests before building, \[31mand in parallel\.\n/,
      'the escape character is gone',
    );
    assert.match(readFileSync(join(dir, 'plan.braid.yaml'), 'utf8'), /name: Planned draft 3/);
    const p = readFileSync(prompt, 'utf8');
    assert.match(p, /## Goal\nLint and test, then build\n/);
    assert.match(
      p,
      /## Draft 1 \(by fake-planner: 2 steps, critical path 2, parallel ≈ 1\.0\)\n```yaml\nversion: 1\nname: Planned draft 1\n/,
    );
    assert.match(p, /## Draft 3 \(by fake-planner: 3 steps, critical path 2, parallel ≈ 1\.5\)/);
    assert.doesNotMatch(p, /## Draft 2/, 'an invalid draft is not judged');
    assert.match(p, /PICK: <the number of the draft you pick: one of 1, 3>/);
    assert.deepEqual(drafts(dir), []);
  });

  it('a malformed judge answer is a clear error; on a terminal the user is asked instead, else the drafts stay and it exits 1', async () => {
    const dir = tempDir();
    const env = plannerEnv(dir, 'valid,wide', { FAKE_JUDGE_REPLY: 'I would go with the second one.\n' });
    const r = await braidPlan(['g', '--best-of', '2', '--agent', planner, '--workspace', dir, '--judge', judge], env);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /the judge's answer is not usable: the judge's answer has no `PICK: N` line \(N one of 1, 2\)/,
    );
    assert.deepEqual(drafts(dir), ['plan.draft-1.braid.yaml', 'plan.draft-2.braid.yaml']);
    assert.equal(existsSync(join(dir, 'plan.braid.yaml')), false);
    const wrong = await braidPlan(
      ['g', '--best-of', '2', '--agent', planner, '--workspace', dir, '--judge', judge, '--force'],
      { ...env, FAKE_JUDGE_REPLY: 'PICK: 7\nREASON: seven is lucky\n' },
      ['1'],
    );
    assert.equal(wrong.code, 0, wrong.stderr);
    assert.match(wrong.stderr, /the judge picked draft 7, which is not one of the valid drafts \(1, 2\)/);
    assert.equal(wrong.asked.length, 1);
    assert.match(readFileSync(join(dir, 'plan.braid.yaml'), 'utf8'), /name: Planned draft 1/);
  });

  it('usage: N outside 2–10, --judge or --keep without --best-of, a list of agents without it, --keep with --judge', async () => {
    const dir = tempDir();
    for (const args of [
      ['--best-of', '1'],
      ['--best-of', '11'],
      ['--best-of', 'x'],
      ['--judge', 'claude'],
      ['--keep', '1'],
      ['--agent', 'claude,codex'],
      ['--best-of', '2', '--keep', '1', '--judge', 'claude'],
    ]) {
      const r = await braidPlan(['g', '--workspace', dir, ...args], {});
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    }
    const missing = await braidPlan(
      ['g', '--best-of', '2', '--workspace', dir, '--agent', planner, '--judge', 'codex'],
      { PATH: '/nonexistent' },
    );
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /judge: codex is not installed/);
    assert.deepEqual(drafts(dir), [], 'nothing drafted for a judge that cannot run');
  });
});
