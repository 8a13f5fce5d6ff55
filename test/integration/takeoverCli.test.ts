// `braid say` and `braid attach` as users run them against a live run, with real processes: what
// they refuse (a shell agent, whose prompt is a script; an ended run for say; a step not running),
// and say's fallback for an agent that cannot continue a session: stopped, then run again with
// the message after its prompt, the message kept in the log and the record. The real CLIs'
// sessions are test/contract/takeover.test.ts's.
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { braid, buildCli, runInBackground as inBackground } from '../helpers/cliRun';
import { type TestRepo } from '../helpers/gitRepo';
import { throwaway } from '../helpers/throwaway';
import { plan } from '../helpers/planText';

const { repo, cleanup } = throwaway('braid-takeover-cli-');
const runInBackground = (r: TestRepo, plan: string) => inBackground(r, plan, cleanup);

// A prose agent Braid cannot resume: it prints its prompt and waits, unless the prompt holds GO,
// then writes the prompt to said.txt. (`sh FILE`: the prompt is an argument, never script source.)
const AGENT = 'printf "%s\\n" "$1"; case "$1" in *GO*) printf "%s" "$1" > said.txt ;; *) sleep 60 ;; esac\n';
// A shell step that keeps the run going until the test opens its gate (a fixed sleep ended the
// run before the last request on a loaded machine).
const GATES = mkdtempSync(join(tmpdir(), 'braid-takeover-gate-'));
cleanup.push(() => rmSync(GATES, { recursive: true, force: true }));
let gates = 0;
function gate(): { file: string; script: string; open(): void } {
  const file = join(GATES, `gate-${++gates}`);
  return {
    file,
    script: `while [ ! -e ${JSON.stringify(file)} ]; do sleep 0.2; done`,
    open: () => writeFileSync(file, ''),
  };
}

// script is running when it is asked, until the test lets the run end.
const PLAN = (holdOpen: string): string =>
  plan`
    version: 1
    agents:
      waiter:
        input: text
        command: [sh, agent.sh, "\${{ prompt }}"]
    steps:
      talk:
        agent: waiter
        prompt: Wait for a word.
      script:
        agent: shell
        prompt: ${JSON.stringify(holdOpen)}
    `;

describe('braid say | attach against a live run (real processes)', function () {
  this.timeout(60_000);
  before(() => {
    assert.ok(buildCli());
  });

  it('say to an agent that cannot resume: it is stopped and runs again with the message after its prompt; the log and record keep it', async () => {
    const hold = gate();
    const r = repo({ 'agent.sh': AGENT, 'p.braid.yaml': PLAN(hold.script) });
    const run = runInBackground(r, join(r.dir, 'p.braid.yaml'));
    const ev = await run.when(
      (e) => e.type === 'output' && e.id === 'talk' && String(e.text).includes('Wait for a word.'),
    );
    const runId = String(ev.run);
    await run.when((e) => e.type === 'step' && e.id === 'script' && e.status === 'running');

    // A shell agent's prompt is its script: a message must never become shell source.
    const shell = braid(['say', runId, 'script', 'touch pwned', '--workspace', r.dir], r.dir);
    assert.equal(shell.status, 1);
    assert.match(shell.stderr, /runs its prompt as a shell script/);
    const attachShell = braid(['attach', runId, 'script', '--workspace', r.dir], r.dir);
    assert.equal(attachShell.status, 1);
    assert.match(attachShell.stderr, /runs its prompt as a shell script/);

    const said = braid(['say', runId, 'talk', 'GO: $(touch pwned)', '--workspace', r.dir], r.dir);
    assert.equal(said.status, 0, said.stderr);
    await run.when((e) => e.type === 'step' && e.id === 'talk' && e.status === 'succeeded');
    assert.equal(
      readFileSync(join(r.dir, 'said.txt'), 'utf8'),
      'Wait for a word.\n\nGO: $(touch pwned)',
      'the message followed the prompt, as data',
    );
    assert.throws(() => readFileSync(join(r.dir, 'pwned')), 'nothing ran the message');
    const rec = JSON.parse(readFileSync(join(r.dir, '.braid', 'runs', runId, 'run.json'), 'utf8')) as {
      steps: Record<string, { said?: { message: string; attempt: number }[]; attempts: unknown[] }>;
    };
    assert.deepEqual(
      rec.steps.talk!.said?.map((m) => [m.message, m.attempt]),
      [['GO: $(touch pwned)', 1]],
    );
    assert.equal(rec.steps.talk!.attempts.length, 1, 'still one attempt: the message continued it');
    assert.match(
      readFileSync(join(r.dir, '.braid', 'runs', runId, 'logs', 'talk.log'), 'utf8'),
      /──── you said: GO: \$\(touch pwned\) ────/,
    );

    // The step has ended: nothing is running to take a message.
    const late = braid(['say', runId, 'talk', 'again', '--workspace', r.dir], r.dir);
    assert.equal(late.status, 1);
    assert.match(late.stderr, /not running an agent session now/);
    hold.open();
    assert.equal(await run.exited, 0);
    const ended = braid(['say', runId, 'talk', 'hello', '--workspace', r.dir], r.dir);
    assert.equal(ended.status, 1);
    assert.match(ended.stderr, /is not running: say reaches a running step/);
  });

  it('attach to a step a live run is done with (failed) says it continues once the run has ended, and opens nothing', async () => {
    const hold = gate();
    const r = repo({
      'agent.sh': AGENT,
      'p.braid.yaml': plan`
        version: 1
        agents:
          waiter:
            input: text
            command: [sh, agent.sh, "\${{ prompt }}"]
        steps:
          broken:
            agent: waiter
            prompt: GO and fail the check
            check: 'false'
          slow:
            agent: shell
            prompt: ${JSON.stringify(hold.script)}
        `,
    });
    const run = runInBackground(r, join(r.dir, 'p.braid.yaml'));
    const ev = await run.when((e) => e.type === 'step' && e.id === 'broken' && e.status === 'failed');
    const runId = String(ev.run);
    const attach = braid(['attach', runId, 'broken', '--workspace', r.dir], r.dir);
    assert.equal(attach.status, 1);
    assert.match(attach.stderr, /broken is failed in run \S+, which is still going: .*once the run has ended/);
    assert.doesNotMatch(attach.stderr, /continuing session|a fresh session/, 'no CLI was opened');
    hold.open();
    assert.equal(await run.exited, 1);
  });
});
