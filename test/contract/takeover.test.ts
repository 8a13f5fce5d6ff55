// Taking over an agent step with the real claude CLI (issue 34; gemini and codex on an ended run):
// `braid attach` stops a running step, opens `claude --resume SESSION` in the step's worktree on a
// terminal (tmux, typed into as a person would), and what the person's session writes there lands
// as the step's attempt, its check run and its dependent going on; `braid say` reaches a running
// step as the user's next turn of its session, seen by the loopback model, and is kept in the
// step's log and record.
import { strict as assert } from 'node:assert';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type AgentHome } from './harness/agentHome';
import { braid, braidInBackground, buildCli, CLI, makeWorkspace, statusOf, type Workspace } from './harness/braidRun';
import { openTerminal, type Terminal } from './harness/tmux';
import { withModelAndHome } from './harness/suite';
import { scenarios, type Scenario } from './modelServer/scenario';
import type { ModelServer, RecordedRequest } from './modelServer/server';
import { plan } from '../helpers/planText';

/** Polls `get` until it returns something; throws `what` after `ms`. */
async function until<T>(get: () => Promise<T | undefined> | T | undefined, what: string, ms = 90_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Whether the request's conversation carries `text` anywhere (a user turn, or claude's note of a message sent while it worked). */
const heard = (q: RecordedRequest, text: string): boolean => JSON.stringify(q.body?.messages ?? []).includes(text);

const procs = (dir: string): string =>
  readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map((n) => {
      try {
        return readlinkSync(`/proc/${n}/cwd`).endsWith(dir)
          ? `${n} ${readlinkSync(`/proc/${n}/cwd`)}: ${readFileSync(`/proc/${n}/cmdline`, 'utf8').split('\0').join(' ')}`
          : '';
      } catch {
        return '';
      }
    })
    .filter(Boolean)
    .join('\n');

/** Processes started from a program in the agents' home (codex installs its background server there) or working in `tree`. */
const leftOver = (home: string, tree: string): string =>
  readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map((n) => {
      try {
        const argv = readFileSync(`/proc/${n}/cmdline`, 'utf8').split('\0');
        const cwd = readlinkSync(`/proc/${n}/cwd`);
        return argv[0]!.startsWith(`${home}/`) || cwd === tree || cwd.startsWith(`${tree}/`)
          ? `${n} ${cwd}: ${argv.join(' ')}`
          : '';
      } catch {
        return '';
      }
    })
    .filter(Boolean)
    .join('\n');

/** The pids of claude processes in the folder whose path ends in `dir` (from /proc). */
function claudePids(dir: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (argv[0]!.split('/').pop() !== 'claude') continue;
      if (readlinkSync(`/proc/${name}/cwd`).endsWith(dir)) out.push(Number(name));
    } catch {
      /* gone */
    }
  }
  return out;
}

const LONG: Scenario = { turns: [{ shell: 'sleep 300' }, { text: 'Slept.' }] };

/** The agent answers with `first` (by default a long command, so it is still running), and a request carrying `word` with `then`. */
function longRunUntil(word: string, then: Scenario, first = LONG): (q: RecordedRequest) => Scenario {
  let from: number | undefined;
  return (q) => {
    if (!q.userTexts.some((t) => t.includes(word))) return first;
    from ??= q.position;
    return { turns: [...Array.from({ length: from }, () => ({ text: '-' })), ...then.turns] };
  };
}

const PLAN = (check: string) =>
  plan`
    version: 1
    steps:
      work:
        agent: claude
        prompt: FIRST PROMPT of the work step.
        check: ${check}
      after:
        needs: [work]
        run: cp attached.txt after.txt
    `;

/**
 * Waits for claude's prompt box, answering the questions a first interactive start asks on the
 * way: the loopback API key (yes) and whether to trust the folder (yes).
 */
async function claudeReady(term: Terminal): Promise<void> {
  const answered = new Set<string>();
  await term.until((s) => {
    const last = s.trimEnd().split('\n').slice(-30).join('\n');
    if (/use this API key/.test(last) && !answered.has('key')) {
      answered.add('key');
      term.press('Up');
      term.press('Enter');
      return false;
    }
    if (/trust (this|the files in this) folder/i.test(last) && !answered.has('trust')) {
      answered.add('trust');
      term.press('Enter');
      return false;
    }
    // The input box: a prompt between two rules.
    return /─{20,}\s*\n❯/.test(last) && !/Enter to confirm/.test(last);
  }, "claude's prompt box");
}

describe('taking over a step: braid attach and braid say with the real claude, gemini and codex CLIs (contract)', function () {
  this.timeout(240_000);
  let server: ModelServer;
  let home: AgentHome;
  let run: ChildProcess | undefined;
  let term: Terminal | undefined;
  withModelAndHome({ scenario: scenarios.answer('Answered.') }, (s, h) => {
    server = s;
    home = h;
  });
  before(() => buildCli());
  afterEach(() => {
    term?.kill();
    term = undefined;
    if (run && run.exitCode === null) run.kill('SIGKILL');
    run = undefined;
  });

  // The CI markers of the suite's own process go on to braid (CI runs it with CI=true, as a CI job
  // would run braid): the CLI handed to a person must not see them (agents/interactive.ts personEnv).
  const ci = Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] => /^(?:CI|CONTINUOUS_INTEGRATION|GITHUB_ACTIONS)$/.test(e[0]) && e[1] !== undefined,
    ),
  );
  const env = (): Record<string, string> => ({
    ...home.env,
    ...ci,
    ...(process.getuid?.() === 0 ? { IS_SANDBOX: '1' } : {}),
  });

  /** Starts `braid run` in the background and waits until step `work`'s agent runs its long command. */
  async function runningStep(
    ws: Workspace,
    plan: string,
  ): Promise<{ runId: string; session: string; ended: Promise<number | null> }> {
    await ws.write('plan.braid.yaml', plan);
    const bg = braidInBackground(
      ['run', 'plan.braid.yaml', '--workspace', ws.dir, '--permission', 'full'],
      ws.dir,
      env(),
    );
    run = bg.child;
    const found = await until(async () => {
      if (bg.child.exitCode !== null) throw new Error(`the run ended early:\n${bg.output()}`);
      const s = await statusOf(ws, env());
      const w = s?.steps.work;
      const sleeping = server.requests.some(
        (q) => q.conversation && q.userTexts.some((t) => t.includes('FIRST PROMPT')) && q.status === 200,
      );
      return w?.status === 'running' && w.sessionId && sleeping ? { runId: s!.id, session: w.sessionId } : undefined;
    }, 'the work step running with a session');
    return { ...found, ended: bg.ended };
  }

  it("attach: a running step is stopped, claude --resume SESSION opens in its worktree, and what the person has it write lands as the step's attempt", async () => {
    server.serve(
      longRunUntil('TAKE OVER NOW', scenarios.writeFile('attached.txt', 'written by hand\n', 'Done by hand.')),
    );
    const ws = await makeWorkspace(home.dir, { git: true });
    const { runId, session, ended } = await runningStep(ws, PLAN('test -f attached.txt'));

    term = openTerminal(
      `braid-attach-${process.pid}`,
      home.dir,
      [process.execPath, CLI, 'attach', runId, 'work', '--workspace', ws.dir],
      env(),
      ws.dir,
    );
    const opened = await term.until((s) => /continuing session \S+ in \S+/.test(s), 'the handover');
    const [, shownSession, cwd] = /continuing session (\S+) in (\S+);/.exec(opened)!;
    assert.equal(shownSession, session, "the step's own session is continued");
    assert.match(cwd!, /worktrees/, `the step's worktree, not the workspace: ${cwd}`);
    await claudeReady(term);
    await term.type('TAKE OVER NOW and write attached.txt');
    await until(
      () => (server.requests.some((q) => q.userTexts.some((t) => t.includes('TAKE OVER NOW'))) ? true : undefined),
      'the typed turn at the model',
      60_000,
    ).catch((e: Error) => {
      throw new Error(
        `${e.message}; the screen:\n${term!.screen()}\nrequests: ${JSON.stringify(server.requests.map((q) => [q.path, q.status, q.conversation, q.userTexts.map((t) => t.slice(0, 60))]))}`,
      );
    });
    await term.until((s) => /Done by hand/.test(s), "the model's answer", 90_000);
    await term.type('/exit');
    await term.until((s) => /\[exit \d+\]/.test(s), 'braid attach to end', 90_000);
    const screen = term.screen();
    assert.match(screen, /work: succeeded/, screen);
    assert.equal(await ended, 0, 'the run ends succeeded');

    // The person's turn went to the resumed session (its history holds the step's first prompt), in the worktree.
    const typed = server.requests.find((q) => q.userTexts.some((t) => t.includes('TAKE OVER NOW')))!;
    assert.ok(
      typed.userTexts.some((t) => t.includes('FIRST PROMPT of the work step')),
      "the resumed conversation carries the step's prompt",
    );
    assert.equal(
      await ws.read('attached.txt'),
      'written by hand\n',
      "what the person's session wrote landed in the workspace",
    );
    assert.equal(await ws.read('after.txt'), 'written by hand\n', 'the dependent ran on it');
    const status = (await statusOf(ws, env(), runId))!;
    assert.equal(status.steps.work!.status, 'succeeded');
    assert.ok(
      (status.steps.work!.changes as { files?: unknown[] } | undefined)?.files?.length,
      'the attempt recorded its change',
    );
    const log = await readFile(join(ws.dir, '.braid', 'runs', runId, 'logs', 'work.log'), 'utf8');
    assert.match(log, new RegExp(`continued by hand in a terminal: session ${session}`));
    assert.ok(!existsSync(cwd!), 'the worktree went with the landed attempt');
  });

  it("attach on an ended run: a failed step's session continues in its kept worktree, and its new attempt lands and lets its dependent run", async () => {
    server.serve(
      longRunUntil(
        'TAKE OVER NOW',
        scenarios.writeFile('attached.txt', 'fixed by hand\n', 'Done by hand.'),
        scenarios.answer('I did nothing.'),
      ),
    );
    const ws = await makeWorkspace(home.dir, { git: true });
    await ws.write('plan.braid.yaml', PLAN('test -f attached.txt'));
    const first = await braid(['run', 'plan.braid.yaml', '--workspace', ws.dir, '--permission', 'full'], ws.dir, env());
    assert.equal(first.code, 1, `the check fails the step: ${first.stdout}${first.stderr}`);
    const before = (await statusOf(ws, env()))!;
    const failed = before.steps.work!;
    assert.equal(failed.status, 'failed');
    const kept = failed.worktree as string;
    assert.ok(kept && existsSync(kept), 'the failed attempt kept its worktree');

    term = openTerminal(
      `braid-attach-ended-${process.pid}`,
      home.dir,
      [process.execPath, CLI, 'attach', before.id, 'work', '--permission', 'full', '--workspace', ws.dir],
      env(),
      ws.dir,
    );
    const opened = await term.until((s) => /continuing session \S+ in \S+/.test(s), 'the handover');
    const [, shownSession, cwd] = /continuing session (\S+) in (\S+);/.exec(opened)!;
    assert.equal(shownSession, failed.sessionId, "the failed attempt's session");
    assert.equal(cwd, kept, 'in the worktree the failed attempt kept');
    await claudeReady(term);
    await term.type('TAKE OVER NOW and write attached.txt');
    await term.until((s) => /Done by hand/.test(s), "the model's answer", 90_000);
    await term.type('/exit');
    const screen = await term.until((s) => /\[exit \d+\]/.test(s), 'braid attach to end', 90_000);
    assert.match(screen, /work: succeeded; run \S+ succeeded/, screen);
    assert.match(screen, /\[exit 0\]/);
    assert.equal(await ws.read('attached.txt'), 'fixed by hand\n');
    assert.equal(await ws.read('after.txt'), 'fixed by hand\n', 'the dependent the failure had skipped ran');
    const after = (await statusOf(ws, env(), before.id))!;
    assert.equal(after.steps.work!.attempts.length, failed.attempts.length + 1, 'one new attempt');
    assert.equal(after.status, 'succeeded');
  });

  it("say: a running claude step gets the message as the user's next message in the same live process (no stop, no resume), kept in its log and record", async () => {
    const MESSAGE = 'STEER: stop sleeping and write attached.txt';
    // The agent works in short commands until the message reaches the model, then (one more
    // command, so its process is there to be seen) writes the file.
    let from: number | undefined;
    server.serve((q) => {
      if (!heard(q, MESSAGE)) return { turns: [{ shell: 'sleep 2' }] };
      from ??= q.position;
      return {
        turns: [
          ...Array.from({ length: from }, () => ({ text: '-' })),
          { shell: 'sleep 2' },
          ...scenarios.writeFile('attached.txt', 'steered\n', 'Steered.').turns,
        ],
      };
    });
    const ws = await makeWorkspace(home.dir, { git: true });
    const { runId, session, ended } = await runningStep(ws, PLAN('test -f attached.txt'));
    const tree = `/worktrees/${runId}/work`;
    const [pid, ...others] = claudePids(tree);
    assert.ok(
      pid !== undefined && others.length === 0,
      `one claude process runs the step: ${[pid, ...others].join(', ')}; ${procs(tree)}`,
    );
    const said = await braid(['say', runId, 'work', MESSAGE, '--workspace', ws.dir], ws.dir, env());
    assert.equal(said.code, 0, said.stderr);
    const turn = await until(
      () => server.requests.find((q) => q.conversation && heard(q, MESSAGE)),
      'the message at the model',
      60_000,
    );
    assert.deepEqual(
      claudePids(tree),
      [pid],
      'the same process took the message: it was not stopped, nor another started',
    );
    // Claude's own framing of a message a user sends while it works, or a user turn of its own.
    const carried = (turn.body.messages as { role: string; content: unknown }[]).find((m) =>
      JSON.stringify(m.content).includes(MESSAGE),
    )!;
    if (carried.role === 'system')
      assert.match(
        String(carried.content),
        /^The user sent a new message while you were working:\nSTEER: stop sleeping/,
      );
    else assert.equal(carried.role, 'user');
    assert.ok(
      turn.userTexts.some((t) => t.includes('FIRST PROMPT of the work step')),
      "in the step's conversation (its history holds the first prompt)",
    );
    assert.equal(await ended, 0, 'the run ends succeeded: the process ended once its work was done');
    assert.equal(await ws.read('attached.txt'), 'steered\n');
    const status = (await statusOf(ws, env(), runId))!;
    const work = status.steps.work!;
    assert.equal(work.status, 'succeeded');
    assert.equal(work.attempts.length, 1);
    assert.equal(work.sessionId, session, 'the same session went on');
    assert.deepEqual(
      (work.said as { message: string }[]).map((m) => m.message),
      [MESSAGE],
      'the record keeps the message',
    );
    const log = await readFile(join(ws.dir, '.braid', 'runs', runId, 'logs', 'work.log'), 'utf8');
    assert.match(log, /you said: STEER: stop sleeping/);
    assert.doesNotMatch(log, /resuming session/, 'no second process resumed the session');
    const raw = (await readFile(join(ws.dir, '.braid', 'runs', runId, 'logs', 'work.jsonl'), 'utf8'))
      .split('\n')
      .filter((l) => l.startsWith('{"type"'))
      .map(
        (l) =>
          JSON.parse(l) as {
            type: string;
            subtype?: string;
            isReplay?: boolean;
            message?: { content?: { text?: string }[] };
          },
      );
    assert.equal(
      raw.filter((e) => e.type === 'system' && e.subtype === 'init').length,
      1,
      'one claude process in the attempt',
    );
    assert.ok(
      raw.some((e) => e.isReplay === true && e.message?.content?.[0]?.text === MESSAGE),
      'claude took the message from its input',
    );
  });

  // Gemini and codex: the same hand-over on an ended run, each with its own resume form, prompt
  // box and quit command. Codex asks once whether to trust the repository the worktree belongs to
  // (as it would a person in a repository it had never opened), answered as a person would.
  const OTHERS: Record<string, { ready: RegExp; quit: string; asks?: { question: RegExp; keys: string[] } }> = {
    gemini: { ready: /Type your message/, quit: '/quit' },
    codex: { ready: /\? for shortcuts/, quit: '/quit', asks: { question: /Trust this folder\?/, keys: ['Enter'] } },
  };
  for (const [cli, how] of Object.entries(OTHERS)) {
    it(`attach on an ended run with ${cli}: its session continues in the kept worktree and what it writes lands`, async () => {
      server.serve(
        longRunUntil(
          'TAKE OVER NOW',
          scenarios.writeFile('attached.txt', `fixed by hand in ${cli}\n`, 'Done by hand.'),
          scenarios.answer('I did nothing.'),
        ),
      );
      const ws = await makeWorkspace(home.dir, { git: true });
      await ws.write('plan.braid.yaml', PLAN('test -f attached.txt').replace('agent: claude', `agent: ${cli}`));
      const first = await braid(
        ['run', 'plan.braid.yaml', '--workspace', ws.dir, '--permission', 'full'],
        ws.dir,
        env(),
      );
      assert.equal(first.code, 1, `the check fails the step: ${first.stdout}${first.stderr}`);
      const before = (await statusOf(ws, env()))!;
      const failed = before.steps.work!;
      assert.ok(failed.sessionId, `${cli} reported its session`);
      term = openTerminal(
        `braid-attach-${cli}-${process.pid}`,
        home.dir,
        [process.execPath, CLI, 'attach', before.id, 'work', '--permission', 'full', '--workspace', ws.dir],
        env(),
        ws.dir,
      );
      const opened = await term.until((s) => /continuing session \S+ in \S+/.test(s), 'the handover');
      const [, shownSession, cwd] = /continuing session (\S+) in (\S+);/.exec(opened)!;
      assert.equal(shownSession, failed.sessionId);
      assert.equal(cwd, failed.worktree as string);
      // The question is answered once it shows (again if a key came before the CLI read keys);
      // the box counts only with no question on the screen.
      let pressed = 0;
      await term.until((s) => {
        const last = s.trimEnd().split('\n').slice(-30).join('\n');
        if (how.asks?.question.test(last)) {
          if (Date.now() - pressed > 3000) {
            pressed = Date.now();
            for (const key of how.asks.keys) term!.press(key);
          }
          return false;
        }
        return how.ready.test(last) && (!how.asks || pressed > 0);
      }, `${cli}'s prompt box`);
      await term.type('TAKE OVER NOW and write attached.txt');
      await term.until((s) => /Done by hand/.test(s), "the model's answer", 90_000);
      await term.type(how.quit);
      const screen = await term.until((s) => /\[exit \d+\]/.test(s), 'braid attach to end', 90_000);
      assert.match(screen, /work: succeeded; run \S+ succeeded/, screen);
      // (codex's apply_patch ends the file with one more newline)
      assert.equal(
        (await ws.read('after.txt')).trimEnd(),
        `fixed by hand in ${cli}`,
        'landed, and the dependent ran on it',
      );
      const typed = server.requests.find((q) => q.userTexts.some((t) => t.includes('TAKE OVER NOW')))!;
      assert.ok(
        typed.userTexts.some((t) => t.includes('FIRST PROMPT of the work step')),
        `${cli} resumed the step's conversation`,
      );
      // Leaving the CLI ended its session: nothing of it (codex's shared background server, were
      // it used) goes on working in the worktree after the hand-back.
      assert.equal(leftOver(home.dir, failed.worktree as string), '', 'no process of the session is left');
    });
  }
});
