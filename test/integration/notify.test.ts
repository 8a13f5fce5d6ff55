// Word off the machine: `braid run` (the bundled CLI) on plans with `notify:` webhooks, a receiver
// on 127.0.0.1 getting each event (a step waiting for review, one waiting for a pick, the budget,
// the run's end), the secret coming from the environment, and a failing webhook told once
// without failing the run. The pick is answered with the very command the webhook carried.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { FAKE_AGENT } from '../helpers/agentScratch';
import { buildCli, MAIN } from '../helpers/cliRun';
import { makeRepo, type TestRepo } from '../helpers/gitRepo';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhookReceiver';
import { plan } from '../helpers/planText';

const q = (s: string) => JSON.stringify(s);

/** `braid ARGS` in the background: its JSON events as they come, its stderr, its exit. */
function braid(args: string[], cwd: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [MAIN, ...args], { cwd, env: { ...process.env, NO_COLOR: '1', ...env } });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const events: Record<string, unknown>[] = [];
  createInterface({ input: child.stdout }).on('line', (l) => {
    try {
      events.push(JSON.parse(l) as Record<string, unknown>);
    } catch {
      /* human output */
    }
  });
  const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  return { child, events, exited, stderr: () => stderr };
}

describe('notify: webhooks (CLI)', function () {
  this.timeout(120_000);
  let scratch = '';
  let bin = '';
  const repos: TestRepo[] = [];
  const receivers: WebhookReceiver[] = [];
  const children: { kill(): void }[] = [];

  before(() => {
    assert.ok(buildCli());
    scratch = mkdtempSync(join(tmpdir(), 'braid-notify-'));
    bin = join(scratch, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'claude'), `#!/bin/sh\nexec ${q(process.execPath)} ${q(FAKE_AGENT)} "$@"\n`);
    chmodSync(join(bin, 'claude'), 0o755);
  });
  after(async () => {
    for (const c of children) c.kill();
    for (const r of receivers) await r.close();
    for (const r of repos) r.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  });

  const receiver = async (status?: number) => {
    const r = await startWebhookReceiver(status);
    receivers.push(r);
    return r;
  };
  const repo = (text: string) => {
    const r = makeRepo({ 'README.md': 'x\n' });
    repos.push(r);
    writeFileSync(join(r.dir, 'p.braid.yaml'), text);
    r.commitAll('plan');
    return r;
  };
  const agentEnv = () => `env: { PATH: ${q(`${bin}:${process.env.PATH}`)}, FAKE_AGENT_FORMAT: claude }`;

  it('a step waiting for review, one waiting for a pick (answered by the command it carries), and the run’s end', async () => {
    const hook = await receiver();
    const r = repo(plan`
      version: 1
      notify: \${{ env.BRAID_TEST_HOOK }}
      ${agentEnv()}
      steps:
        change:
          run: echo changed > r.txt
          writes: [r.txt]
          isolation: worktree
          review: true
        choose:
          agent: claude
          prompt: write it
          best-of: 2
          pick: review
          env: { FAKE_AGENT_WRITE: "c.txt=done" }
          writes: [c.txt]
      `);
    const run = braid(['run', 'p.braid.yaml', '--json'], r.dir, { BRAID_TEST_HOOK: hook.url });
    children.push(run.child);
    const pick = await hook.when((d) => d.body.braid.event === 'pick');
    const runId = pick.body.braid.run!;
    assert.equal(pick.path, new URL(hook.url).pathname, 'the URL came from the environment, whole');
    assert.equal(pick.contentType, 'application/json');
    assert.equal(pick.body.braid.step, 'choose');
    assert.equal(pick.body.braid.command, `braid pick ${runId} choose N`);
    assert.match(
      pick.body.text,
      new RegExp(
        `^Braid: step choose of run ${runId} of p waits for a pick among alternatives 1, 2: braid pick ${runId} choose N\\.$`,
      ),
    );
    const review = await hook.when((d) => d.body.braid.event === 'review');
    assert.equal(review.body.braid.step, 'change');
    assert.equal(review.body.braid.command, `braid approve ${runId} change`);
    assert.match(
      review.body.text,
      /waits for review: see its change with braid diff \S+ change, then braid approve \S+ change \(or braid reject \S+ change\)\./,
    );

    // The commands the webhooks carried, as someone reading them on their phone would type them
    // (the run waits on both: the pick, and the change in review).
    const type = async (command: string) => {
      const c = spawn(process.execPath, [MAIN, ...command.split(' ').slice(1)], { cwd: r.dir });
      assert.equal(await new Promise((done) => c.on('close', done)), 0, command);
    };
    await type(pick.body.braid.command.replace(/ N$/, ' 1'));
    await type(review.body.braid.command);
    const code = await run.exited;
    assert.equal(code, 0, run.stderr());
    const end = await hook.when((d) => d.body.braid.event === 'run-ended');
    assert.equal(end.body.braid.status, 'succeeded');
    assert.match(
      end.body.text,
      new RegExp(`^Braid: run ${runId} of p succeeded: 2 succeeded, \\$0\\.0246\\. braid status ${runId}$`),
    );
    // Each event once, in order: nothing told twice.
    assert.deepEqual(hook.deliveries.map((d) => d.body.braid.event).sort(), ['pick', 'review', 'run-ended']);
    assert.equal(hook.deliveries.at(-1)!.body.braid.event, 'run-ended');
  });

  it('the budget, and a failing webhook told once while the others still hear and the run is not failed by it', async () => {
    const good = await receiver();
    const bad = await receiver(500);
    const r = repo(plan`
      version: 1
      notify:
        - \${{ env.GOOD_HOOK }}
        - \${{ env.BAD_HOOK }}
        - \${{ env.UNSET_HOOK }}
      ${agentEnv()}
      max-cost-usd: 0.01
      concurrency: 1
      steps:
        spend:
          agent: claude
          prompt: spend
        later:
          needs: [spend]
          run: echo later
      `);
    const run = braid(['run', 'p.braid.yaml'], r.dir, { GOOD_HOOK: good.url, BAD_HOOK: bad.url });
    children.push(run.child);
    const code = await run.exited;
    assert.equal(code, 1, 'the budget stops the run (the webhook does not decide that)');
    const budget = good.deliveries.find((d) => d.body.braid.event === 'budget');
    assert.ok(budget, JSON.stringify(good.deliveries));
    assert.match(
      budget.body.text,
      /reached its budget \(\$0\.0123 of \$0\.0100\): the run stops there \(braid run asks no one\): raise max-cost-usd, then braid retry \S+\.$/,
    );
    const end = good.deliveries.find((d) => d.body.braid.event === 'run-ended');
    assert.match(end?.body.text ?? '', /failed \(it reached its budget\)/);
    assert.equal(bad.deliveries.length, 2, 'the failing webhook was tried for both events');
    const told = run
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('braid: notify:'));
    assert.deepEqual(told, [
      'braid: notify: no word goes to ${{ env.UNSET_HOOK }}: UNSET_HOOK is not set in the environment',
      'braid: notify: the webhook ${{ env.BAD_HOOK }} failed (HTTP 500); the run goes on, and later failures of it are not reported',
    ]);
    assert.equal(run.stderr().includes('secretToken'), false, 'the secret is never printed');
  });
});
