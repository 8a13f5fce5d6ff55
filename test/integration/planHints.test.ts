// `braid plan` as a user meets it: the hint it prints runs the plan where it was drafted, and a
// missing agent CLI is one plain line and exit 2 (as `run`), not a problem placed in a file.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { planCommand } from '../../src/cli/commands/plan';

const PLANNER = resolve(__dirname, '../fixtures/agents/fake-planner.mjs');

async function plan(args: string[], env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    return {
      code: await planCommand(args, {
        out: (s) => {
          out += s;
        },
        err: (s) => {
          err += s;
        },
      }),
      out,
      err,
    };
  } finally {
    for (const k of Object.keys(env))
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
  }
}

describe('braid plan: hints and a missing agent', function () {
  this.timeout(60_000);
  const dirs: string[] = [];
  const temp = (): string => {
    const d = realpathSync(mkdtempSync(join(tmpdir(), 'braid-plan-hint-')));
    dirs.push(d);
    return d;
  };
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('--out outside the workspace: the run hint names the workspace the plan was drafted for', async () => {
    const ws = temp();
    spawnSync('git', ['init', '-q'], { cwd: ws });
    const elsewhere = join(temp(), 'p.braid.yaml');
    const agent = `'${process.execPath}' '${PLANNER}'`;
    const r = await plan(['goal', '--agent', agent, '--workspace', ws, '--out', elsewhere], {
      FAKE_PLANNER_MODE: 'valid',
      FAKE_PLANNER_STATE: join(ws, '.state'),
    });
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, new RegExp(`run it with: braid run ${elsewhere} --workspace ${ws}\\n`));
    const inside = await plan(['goal', '--agent', agent, '--workspace', ws, '--force'], {
      FAKE_PLANNER_MODE: 'valid',
      FAKE_PLANNER_STATE: join(ws, '.state'),
    });
    assert.match(
      inside.err,
      new RegExp(`run it with: braid run ${join(ws, 'plan.braid.yaml')}\\n`),
      'inside it, no --workspace',
    );
  });

  it('a missing agent CLI: one line, exit 2, no made-up FILE:1:1', async () => {
    const ws = temp();
    const r = await plan(['goal', '--workspace', ws], { PATH: join(ws, 'empty-bin') });
    assert.equal(r.code, 2);
    assert.equal(r.out, '');
    assert.equal(r.err, 'braid: claude is not installed; install it with npm install -g @anthropic-ai/claude-code\n');
  });
});
