// Issue 32 on GitHub: an exported agent whose command may run its prompt gets, as locally, its
// arguments with every template a reference to a variable the job exported; the value is never in
// the words after `braid_run`. A text agent (claude) still gets the prompt's text as one argument.
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { exportGithubActions } from '../../src/core/export/githubActions';
import { compilePlan } from '../../src/core/plan/compile';
import { plan } from '../helpers/planText';

interface Step {
  run?: string;
  env?: Record<string, string>;
}
interface Workflow {
  jobs: Record<string, { steps: Step[] }>;
}

const runStep = (yaml: string, job: string): Step =>
  (parse(yaml) as Workflow).jobs[job]!.steps.find((s) => s.run?.includes('braid_run'))!;

describe('export github-actions: agents that may run their prompt (issue 32)', () => {
  const text = plan`
      version: 1
      agents:
        wrapped: { command: [timeout, "600", sh, -c, "set -e; \${{ prompt }}"] }
        bashin: { command: [bash], stdin: prompt }
      steps:
        fetch: { run: cat untrusted.txt }
        use: { needs: [fetch], agent: shell, prompt: "echo \${{ steps.fetch.output }}" }
        wrap: { needs: [fetch], agent: wrapped, prompt: "echo \${{ steps.fetch.output }}" }
        stdin: { needs: [fetch], agent: bashin, prompt: "echo \${{ steps.fetch.output }}" }
        ask: { needs: [fetch], agent: claude, prompt: "Review \${{ steps.fetch.output }}" }
      `;
  const yaml = exportGithubActions(compilePlan('a.braid.yaml', text, { isGit: true }).graph!, {
    planPath: 'a.braid.yaml',
  }).yaml;

  it('agent: shell and a wrapped shell: the script is the prompt as written, the output a reference', () => {
    const use = runStep(yaml, 'use');
    assert.match(use.run!, /^braid_run sh -c "\$\{BRAID_ARG_2\}"$/m);
    assert.equal(use.env!.BRAID_ARG_2, 'echo ${BRAID_STEPS_FETCH_OUTPUT}');
    assert.match(use.run!, /^braid_value BRAID_STEPS_FETCH_OUTPUT /m);
    const wrap = runStep(yaml, 'wrap');
    assert.match(wrap.run!, /^braid_run timeout 600 sh -c "\$\{BRAID_ARG_4\}"$/m);
    assert.equal(wrap.env!.BRAID_ARG_4, 'set -e; echo ${BRAID_STEPS_FETCH_OUTPUT}');
    for (const s of [use, wrap])
      assert.doesNotMatch(
        s.run!.split('\n').find((l) => l.startsWith('braid_run'))!,
        /braid_prompt/,
      );
  });

  it('a shell reading stdin gets the prompt as written; BRAID_PROMPT holds its text', () => {
    const s = runStep(yaml, 'stdin');
    assert.equal(s.env!.BRAID_STDIN_SCRIPT, 'echo ${BRAID_STEPS_FETCH_OUTPUT}');
    const lines = s.run!.split('\n');
    assert.ok(
      lines.indexOf('braid_prompt="${BRAID_STDIN_SCRIPT}"') > lines.indexOf('export BRAID_PROMPT="$braid_prompt"'),
    );
  });

  it('a text agent keeps its prompt as one argument of text', () => {
    assert.match(runStep(yaml, 'ask').run!, /-- "\$\{braid_prompt\}"$/m);
  });
});
