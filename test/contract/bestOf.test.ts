// Best-of across the real agent CLIs (the pinned claude, codex and gemini) through `braid run`,
// against the loopback model server: one step whose three alternatives are the three CLIs, each
// in its own worktree, writing the same file through its own tool with its own content; `pick:
// check` ranks them by the `score: N` line their check prints. Only the winner's change lands, the losers'
// worktrees go, and the record keeps every alternative's change (its ref) and the winner.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { worktreePath } from '../../src/core/engine/isolation/worktree';
import { type AgentHome } from './harness/agentHome';
import { braid, makeWorkspace, runPlan, stepOf } from './harness/braidRun';
import type { Scenario } from './modelServer/scenario';
import type { ModelServer, RecordedRequest } from './modelServer/server';
import { plan } from '../helpers/planText';
import { withModelAndHome } from './harness/suite';

const CLIS = ['claude', 'codex', 'gemini'] as const;
const PROVIDER_OF: Record<string, (typeof CLIS)[number]> = { anthropic: 'claude', openai: 'codex', gemini: 'gemini' };
const PROMPT = 'Write answer.txt with your name in it.';

type Change = {
  commit: string;
  base: string;
  files: Array<{ path: string; status: string; added: number; removed: number }>;
};
type Alternative = {
  index: number;
  status: string;
  attempts: number;
  score?: number;
  worktree?: string;
  changes?: Change;
};

describe('best-of across claude, codex and gemini through braid run (contract)', function () {
  this.timeout(200_000);
  let server: ModelServer;
  let home: AgentHome;

  withModelAndHome({ scenario: { turns: [{ text: 'unused' }] } }, (s, h) => {
    server = s;
    home = h;
  });

  it("pick check: each CLI's request reaches the model, the highest score lands alone, the losers' worktrees go, every change is recorded", async () => {
    // Each provider's model has its CLI write its own name into answer.txt, with its own file tool.
    server.serve((req: RecordedRequest): Scenario => {
      const cli = PROVIDER_OF[req.provider] ?? 'other';
      return {
        turns: [{ write: { path: 'answer.txt', content: `from ${cli}` } }, { text: `${cli} wrote answer.txt.` }],
      };
    });
    const ws = await makeWorkspace(home.dir, { git: true });
    // Scores: gemini 3, codex 2, claude 1 (the check prints a `score: N` line).
    const r = await runPlan(
      ws,
      plan`
        version: 1
        steps:
          answer:
            prompt: ${PROMPT}
            alternatives:
              - { agent: claude }
              - { agent: codex }
              - { agent: gemini }
            pick: check
            writes: [answer.txt]
            check: 'case "$(cat answer.txt)" in *gemini*) echo score: 3 ;; *codex*) echo score: 2 ;; *claude*) echo score: 1 ;; *) exit 1 ;; esac'
        `,
      home.env,
      [],
      180_000,
    );
    const step = stepOf(r, 'answer');
    const alts = step.alternatives as Alternative[];
    const logs = async () => (await Promise.all(CLIS.map((_, i) => r.log(`answer.alt${i + 1}`)))).join('\n----\n');
    assert.equal(
      step.status,
      'succeeded',
      `${r.stdout}\n${r.stderr}\n${JSON.stringify(step, null, 2)}\n${await logs()}`,
    );

    for (const cli of CLIS) {
      assert.ok(
        server.requests.some(
          (q) => q.conversation && PROVIDER_OF[q.provider] === cli && q.userTexts.some((t) => t.includes(PROMPT)),
        ),
        `${cli}'s request with the prompt reached the model`,
      );
    }
    assert.deepEqual(
      alts.map((a) => [a.index, a.status, a.score]),
      [
        [1, 'succeeded', 1],
        [2, 'succeeded', 2],
        [3, 'succeeded', 3],
      ],
      JSON.stringify(alts),
    );
    assert.equal(step.winner, 3);
    assert.equal(step.winnerWhy, 'score 3');

    // Only the winner's change landed: gemini's file, and nothing else of the others'.
    assert.equal((await ws.read('answer.txt')).trim(), 'from gemini');
    const git = (...args: string[]) => execFileSync('git', args, { cwd: ws.dir, encoding: 'utf8' });
    assert.deepEqual(
      git('status', '--porcelain', '--untracked-files=all')
        .split('\n')
        .filter((l) => l && !l.includes('.braid/') && !l.endsWith('plan.braid.yaml')),
      ['?? answer.txt'],
    );

    // The losers' worktrees (and the winner's) are gone; none is named in the record.
    assert.deepEqual(
      git('worktree', 'list', '--porcelain')
        .split('\n')
        .filter((l) => l.startsWith('worktree ')),
      [`worktree ${ws.dir}`],
    );
    assert.equal(git('for-each-ref', 'refs/heads/braid/').trim(), '', 'no braid/* branch left');
    for (const a of alts) {
      assert.equal(a.worktree, undefined);
      assert.equal(
        existsSync(worktreePath(ws.dir, r.status.id, `answer.alt${a.index}`)),
        false,
        `alternative ${a.index}'s worktree folder is gone`,
      );
    }

    // Every alternative's change is recorded: its own ref, parent its base, its own content.
    for (const [i, a] of alts.entries()) {
      assert.deepEqual(
        a.changes?.files.map((f) => [f.path, f.status]),
        [['answer.txt', 'added']],
        JSON.stringify(a),
      );
      assert.equal(git('rev-parse', `refs/braid/runs/${r.status.id}/answer.alt${a.index}`).trim(), a.changes.commit);
      assert.equal(git('show', `${a.changes.commit}:answer.txt`).trim(), `from ${CLIS[i]}`);
    }
    assert.equal((step.changes as Change).commit, alts[2]!.changes!.commit, "the step's change is the winner's");
    const diff = await braid(
      ['diff', r.status.id, 'answer', '--alternative', '2', '--workspace', ws.dir],
      ws.dir,
      home.env,
    );
    assert.equal(diff.code, 0, diff.stderr);
    assert.match(diff.stdout, /── answer · alternative 2 \(succeeded\) ──\n[\s\S]*\+from codex/);
  });
});
