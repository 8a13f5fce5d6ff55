// Planning mode: the prompt an agent gets, the draft → validate → one repair loop with a real
// fake agent process, the failures it reports as data, and `braid plan` end to end.
import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { main } from '../../src/cli/main';
import type { SpawnSpec } from '../../src/core/exec/process';
import { compilePlan } from '../../src/core/plan/compile';
import { draftPlan, type DraftPlanOptions, type DraftProgress } from '../../src/core/planning/draftPlan';
import { FORMAT_GUIDE, GUIDE_EXAMPLE } from '../../src/core/planning/formatGuide';
import { boundPaths, workspaceLayout } from '../../src/core/planning/layout';
import { draftPrompt, type DraftContext } from '../../src/core/planning/prompt';
import { schemaKeys } from '../../src/core/planning/schemaReference';
import { makeRepo } from '../helpers/gitRepo';

const PLANNER = resolve(__dirname, '../fixtures/agents/fake-planner.mjs');
// The prompt as the last argv element; without `${{ prompt }}` it would go on stdin.
const ARGV_AGENT = [process.execPath, PLANNER, '${{ prompt }}'];
const STDIN_AGENT = [process.execPath, PLANNER];

function tempDir(): string {
  return realpathSync(mkdtempSync(join(tmpdir(), 'braid-plan-')));
}

function fakeEnv(dir: string, mode: string): Record<string, string | undefined> {
  return {
    ...process.env,
    FAKE_PLANNER_MODE: mode,
    FAKE_PLANNER_STATE: join(dir, '.state'),
    FAKE_PLANNER_PROMPTS: join(dir, '.prompts'),
  };
}

function draft(dir: string, mode: string, extra: Partial<DraftPlanOptions> = {}) {
  return draftPlan({
    goal: 'Add a lint step before the build',
    workspace: dir,
    agent: ARGV_AGENT,
    env: fakeEnv(dir, mode),
    ...extra,
  });
}

const context = (over: Partial<DraftContext> = {}): DraftContext => ({
  file: 'plans/dark.braid.yaml',
  layout: { paths: ['package.json', 'src/index.ts', 'web/app.tsx'], total: 3, source: 'git' },
  agents: [
    { name: 'claude', installed: true, pool: 'anthropic' },
    { name: 'codex', installed: false },
  ],
  ...over,
});

describe('planning: the prompt', () => {
  it('holds the goal, the format guide, every schema key, the agents, the layout and the output path', () => {
    const p = draftPrompt('Add dark mode to the settings page', context());
    assert.match(p, /## Goal\nAdd dark mode to the settings page\n/);
    assert.ok(p.includes(FORMAT_GUIDE), 'the hand-written guide');
    assert.match(p, /Write the plan to this file: plans\/dark\.braid\.yaml\n/);
    for (const path of ['package.json', 'src/index.ts', 'web/app.tsx'])
      assert.match(p, new RegExp(`^${path.replace('.', '\\.')}$`, 'm'));
    assert.match(p, /^- claude \(installed, pool anthropic\)$/m);
    assert.match(p, /^- codex \(NOT installed here: do not use it\)$/m);
    const keys = schemaKeys();
    assert.ok(
      keys.step.includes('needs') && keys.top.includes('steps') && keys.agent.includes('command'),
      'keys come from the JSON schema',
    );
    for (const k of keys.top) assert.match(p, new RegExp(`^  ${k}: `, 'm'), `top-level key ${k}`);
    for (const k of [...keys.step, ...keys.agent]) assert.match(p, new RegExp(`^  ${k}: .+`, 'm'), `key ${k}`);
    assert.match(p, /^  retries: integer 0–10$/m);
    assert.match(p, /^  isolation: shared \| worktree$/m);
  });

  it('says when the workspace is not a git repository and how many paths were left out', () => {
    const p = draftPrompt('goal', context({ layout: { paths: ['a.txt'], total: 41, source: 'walk' } }));
    assert.match(p, /not a git repository, so `isolation: worktree` is not available/);
    assert.match(p, /… and 40 more files/);
  });

  it("the guide's example is a valid plan", () => {
    const r = compilePlan('/w/example.braid.yaml', GUIDE_EXAMPLE, { isGit: true });
    assert.deepEqual(r.diagnostics, []);
    assert.ok(r.graph?.steps.has('research-cline'));
  });
});

describe('planning: the workspace layout', () => {
  it("lists git's files (tracked and untracked, not ignored), never node_modules, .git or .braid", async () => {
    const repo = makeRepo({ 'src/a.ts': 'a', '.gitignore': 'dist/\n', 'node_modules/x/index.js': 'x' });
    try {
      repo.write('notes.md', 'untracked');
      repo.write('dist/bundle.js', 'ignored');
      repo.write('.braid/runs/r1/run.json', '{}');
      const l = await workspaceLayout(repo.dir);
      assert.equal(l.source, 'git');
      assert.deepEqual(l.paths, ['.gitignore', 'notes.md', 'src/a.ts']);
      assert.equal(l.total, 3);
    } finally {
      repo.cleanup();
    }
  });

  it('walks a folder outside git, skipping the same folders', async () => {
    const dir = tempDir();
    for (const f of ['README.md', 'lib/x.js', 'node_modules/p/i.js', '.braid/runs/x', 'a/b/c/d.txt']) {
      mkdirSync(join(dir, f, '..'), { recursive: true });
      writeFileSync(join(dir, f), '');
    }
    const l = await workspaceLayout(dir);
    assert.equal(l.source, 'walk');
    assert.deepEqual(l.paths, ['README.md', 'a/b/c/d.txt', 'lib/x.js']);
  });

  it('a big tree is cut to its shallowest paths', () => {
    const all = ['z.md', 'a/b/c/deep.ts', 'a/top.ts', 'b/c.ts', 'm.json'];
    assert.deepEqual(boundPaths(all, 3), ['m.json', 'a/top.ts', 'z.md'].sort());
  });
});

describe('planning: draftPlan with a fake agent', function () {
  this.timeout(60_000);

  it('an invalid draft, then a valid one: ok after 2 attempts, the second prompt carries the problems with line numbers', async () => {
    const dir = tempDir();
    const progress: DraftProgress[] = [];
    const r = await draft(dir, 'invalid-then-valid', { onProgress: (p) => progress.push(p) });
    assert.equal(r.ok, true, JSON.stringify(r.diagnostics));
    assert.equal(r.attempts, 2);
    assert.equal(r.file, join(dir, 'plan.braid.yaml'));
    assert.deepEqual([...r.graph!.steps.keys()], ['lint', 'build']);
    assert.equal(r.diagnostics.filter((d) => d.severity === 'error').length, 0);
    assert.equal(r.prompts.length, 2);
    const second = r.prompts[1]!;
    assert.match(second, /^ {2}plan\.braid\.yaml:5:5: error: steps\.build\.nedds: unknown key `nedds`/m);
    assert.match(second, /The file currently holds:\n```yaml\nversion: 1\n[\s\S]*nedds: \[lint\]/);
    assert.match(second, /Write the plan to this file: plan\.braid\.yaml/);
    // What the agent process really received.
    assert.equal(readFileSync(join(dir, '.prompts/prompt-2.txt'), 'utf8'), second);
    assert.equal(readFileSync(join(dir, '.prompts/prompt-1.txt'), 'utf8'), r.prompts[0]);
    assert.deepEqual(
      progress.filter((p) => p.kind !== 'output'),
      [
        { kind: 'attempt', attempt: 1, agent: 'fake-planner' },
        { kind: 'validated', attempt: 1, errors: 1, warnings: 0 },
        { kind: 'attempt', attempt: 2, agent: 'fake-planner' },
        { kind: 'validated', attempt: 2, errors: 0, warnings: 0 },
      ],
    );
    assert.ok(r.log.includes('planning (run 2, mode invalid-then-valid)'), r.log.join('\n'));
  });

  it("always invalid: not ok after 2 attempts, with the validator's located diagnostics", async () => {
    const dir = tempDir();
    const r = await draft(dir, 'invalid');
    assert.equal(r.ok, false);
    assert.equal(r.attempts, 2);
    assert.equal(r.graph, undefined);
    const d = r.diagnostics.find((x) => x.code === 'unknown-key');
    assert.ok(d, JSON.stringify(r.diagnostics));
    assert.deepEqual(d.range.start, { line: 4, column: 4 });
    assert.equal(d.file, join(dir, 'plan.braid.yaml'));
  });

  it('writes nothing: a clear failure naming the file, located at it', async () => {
    const dir = tempDir();
    const r = await draft(dir, 'nothing');
    assert.equal(r.ok, false);
    assert.equal(r.attempts, 2, 'the agent is told once that it wrote nothing');
    assert.match(r.prompts[1]!, /did not write plan\.braid\.yaml/);
    assert.equal(r.diagnostics.length, 1);
    assert.equal(r.diagnostics[0]!.code, 'not-written');
    assert.equal(r.diagnostics[0]!.file, join(dir, 'plan.braid.yaml'));
    assert.match(r.diagnostics[0]!.message, /fake-planner finished again without writing plan\.braid\.yaml/);
    assert.equal(existsSync(r.file), false);
  });

  it('an agent that fails without writing stops at once with its exit code and last error line', async () => {
    const dir = tempDir();
    const r = await draft(dir, 'fail');
    assert.equal(r.ok, false);
    assert.equal(r.attempts, 1);
    assert.equal(r.diagnostics[0]!.code, 'agent-failed');
    assert.match(
      r.diagnostics[0]!.message,
      /exited with code 3 without writing plan\.braid\.yaml: fake-planner: API key missing/,
    );
  });

  it('a command without ${{ prompt }} gets the prompt on stdin; --out in a subfolder is shown relative', async () => {
    const dir = tempDir();
    const r = await draft(dir, 'valid', { agent: STDIN_AGENT, file: 'plans/new.braid.yaml' });
    assert.equal(r.ok, true, JSON.stringify(r.diagnostics));
    assert.equal(r.attempts, 1);
    assert.equal(r.file, join(dir, 'plans/new.braid.yaml'));
    assert.match(
      readFileSync(join(dir, '.prompts/prompt-1.txt'), 'utf8'),
      /Write the plan to this file: plans\/new\.braid\.yaml/,
    );
  });

  it('a file that existed is "not written" until the agent changes it', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'plan.braid.yaml'), 'version: 1\nsteps:\n  a:\n    run: echo old\n');
    const r = await draft(dir, 'nothing');
    assert.equal(r.ok, false, 'an old valid plan is not a draft');
    assert.equal(r.diagnostics[0]!.code, 'not-written');
  });

  it('a preset runs with its headless argv and edit permission; its stream gives readable lines and the cost', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src/parser.ts'), '');
    let seen: SpawnSpec | undefined;
    const r = await draftPlan({
      goal: 'Refactor the parser',
      workspace: dir,
      agent: 'claude',
      env: { PATH: '/nonexistent' },
      runAgent: async (spec) => {
        seen = spec;
        writeFileSync(
          join(dir, 'plan.braid.yaml'),
          'version: 1\nsteps:\n  a:\n    prompt: refactor\n    isolation: shared\n    writes: [src/**]\n',
        );
        spec.onOutput?.(
          'stdout',
          `${JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: 'Writing the plan.' }] } })}\n`,
        );
        spec.onOutput?.(
          'stdout',
          `${JSON.stringify({ type: 'result', subtype: 'success', is_error: false, num_turns: 2, result: 'done', session_id: 's1', total_cost_usd: 0.05 })}\n`,
        );
        return { exitCode: 0, signal: null, reason: 'exit', durationMs: 1, stdoutTail: '' };
      },
    });
    assert.equal(r.ok, true, JSON.stringify(r.diagnostics));
    const argv = seen!.argv;
    // The prompt last, after `--`, so no prompt is read as an option.
    assert.deepEqual(argv.slice(0, -1), [
      'claude',
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--permission-mode',
      'acceptEdits',
      '--',
    ]);
    assert.equal(argv.at(-1), r.prompts[0]);
    assert.equal(seen!.cwd, dir);
    assert.equal(seen!.env.BRAID_PLAN_FILE, join(dir, 'plan.braid.yaml'));
    assert.ok(r.log.includes('Writing the plan.'), r.log.join('\n'));
    assert.equal(r.costUsd, 0.05);
    assert.match(r.prompts[0]!, /## Goal\nRefactor the parser\n[\s\S]*## Workspace layout\n.*\nsrc\/parser\.ts\n/);
  });

  it('reports waiting while the agent is silent', async () => {
    const dir = tempDir();
    let heard!: () => void;
    const waited = new Promise<void>((res) => {
      heard = res;
    });
    const r = await draftPlan({
      goal: 'g',
      workspace: dir,
      agent: ARGV_AGENT,
      heartbeatMs: 5,
      onProgress: (p) => {
        if (p.kind === 'waiting') {
          assert.equal(p.attempt, 1);
          heard();
        }
      },
      // The stand-in agent only finishes once a heartbeat has arrived.
      runAgent: async () => {
        await waited;
        writeFileSync(join(dir, 'plan.braid.yaml'), 'version: 1\nsteps:\n  a:\n    run: echo\n');
        return { exitCode: 0, signal: null, reason: 'exit', durationMs: 1, stdoutTail: '' };
      },
    });
    assert.equal(r.ok, true);
  });

  it('refuses the shell preset and a misspelt agent; a missing CLI names its install command; none runs', async () => {
    const dir = tempDir();
    const shell = await draftPlan({ goal: 'g', workspace: dir, agent: 'shell' });
    assert.equal(shell.diagnostics[0]!.code, 'agent-invalid');
    assert.match(shell.diagnostics[0]!.message, /runs its prompt as a script/);
    const typo = await draftPlan({ goal: 'g', workspace: dir, agent: 'cladue', env: { PATH: '/nonexistent' } });
    assert.match(typo.diagnostics[0]!.message, /unknown agent cladue; did you mean `claude`\?/);
    const missing = await draftPlan({ goal: 'g', workspace: dir, agent: 'codex', env: { PATH: '/nonexistent' } });
    assert.equal(missing.diagnostics[0]!.code, 'agent-missing');
    assert.match(
      missing.diagnostics[0]!.message,
      /codex is not installed; install it with npm install -g @openai\/codex/,
    );
    for (const r of [shell, typo, missing]) {
      assert.equal(r.ok, false);
      assert.equal(r.attempts, 0);
    }
  });

  it('a cancel is a result, not a throw', async () => {
    const dir = tempDir();
    const ac = new AbortController();
    ac.abort();
    const r = await draft(dir, 'valid', { signal: ac.signal });
    assert.equal(r.ok, false);
    assert.equal(r.diagnostics[0]!.code, 'canceled');
  });
});

describe('planning: braid plan', function () {
  this.timeout(60_000);
  const agentArg = `'${process.execPath}' '${PLANNER}'`;

  async function braid(
    args: string[],
    env: Record<string, string>,
  ): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = '';
    let stderr = '';
    const saved = { out: process.stdout.write, err: process.stderr.write, env: { ...process.env } };
    Object.assign(process.env, env);
    process.stdout.write = (s: string | Uint8Array) => {
      stdout += String(s);
      return true;
    };
    process.stderr.write = (s: string | Uint8Array) => {
      stderr += String(s);
      return true;
    };
    try {
      return { code: await main(['plan', ...args]), stdout, stderr };
    } finally {
      process.stdout.write = saved.out;
      process.stderr.write = saved.err;
      for (const k of Object.keys(env))
        if (saved.env[k] === undefined) delete process.env[k];
        else process.env[k] = saved.env[k];
    }
  }
  const env = (dir: string, mode: string) => ({ FAKE_PLANNER_MODE: mode, FAKE_PLANNER_STATE: join(dir, '.state') });

  it('drafts, repairs once, prints progress on stderr and the path on stdout, exit 0', async () => {
    const dir = tempDir();
    const r = await braid(['Add a lint step', '--agent', agentArg, '--workspace', dir], env(dir, 'invalid-then-valid'));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${join(dir, 'plan.braid.yaml')}\n`);
    assert.match(
      r.stderr,
      /asking fake-planner to draft the plan…[\s\S]*1 problem in the draft[\s\S]*fix the problems \(last attempt\)[\s\S]*the plan is valid/,
    );
    assert.match(r.stderr, /│ planning \(run 2, mode invalid-then-valid\)/);
    assert.match(readFileSync(join(dir, 'plan.braid.yaml'), 'utf8'), /name: Planned/);
  });

  it('still invalid after the second try: validate-style problems on stdout, exit 1', async () => {
    const dir = tempDir();
    const r = await braid(
      ['Add a lint step', '--agent', agentArg, '--workspace', dir, '--out', join(dir, 'p.braid.yaml')],
      env(dir, 'invalid'),
    );
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      new RegExp(
        `^${join(dir, 'p.braid.yaml').replace(/[.]/g, '\\.')}:5:5: error: steps\\.build\\.nedds: unknown key \`nedds\``,
        'm',
      ),
    );
    assert.match(r.stderr, /still invalid after 2 attempts/);
  });

  it('refuses to overwrite without --force, and other usage errors exit 2', async () => {
    const dir = tempDir();
    const file = join(dir, 'plan.braid.yaml');
    writeFileSync(file, 'mine\n');
    const r = await braid(['goal', '--agent', agentArg, '--workspace', dir], env(dir, 'valid'));
    assert.equal(r.code, 2);
    assert.match(r.stderr, /exists; pass --force to overwrite it/);
    assert.equal(readFileSync(file, 'utf8'), 'mine\n');
    assert.equal((await braid(['--workspace', dir], {})).code, 2, 'no goal');
    assert.equal((await braid(['two', 'goals', '--workspace', dir], {})).code, 2);
    assert.equal((await braid(['goal', '--agent', 'shell', '--workspace', dir, '--force'], {})).code, 2);
    const forced = await braid(['goal', '--agent', agentArg, '--workspace', dir, '--force'], env(dir, 'valid'));
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(readFileSync(file, 'utf8'), /version: 1/);
  });

  it('is in the help', async () => {
    let help = '';
    const saved = process.stdout.write;
    process.stdout.write = (s: string) => {
      help += s;
      return true;
    };
    try {
      assert.equal(await main(['--help']), 0);
    } finally {
      process.stdout.write = saved;
    }
    assert.match(help, /braid plan "GOAL" \[options\][\s\S]*--agent NAME[\s\S]*--force/);
  });
});
