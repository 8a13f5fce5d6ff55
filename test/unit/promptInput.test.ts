// promptInput.ts and its validation (issue 32): values become text only for an agent that says its
// command takes the prompt as text; everywhere else every template stays a reference.
import { strict as assert } from 'node:assert';
import { agentInvocation } from '../../src/core/agents/invocation';
import { PRESETS } from '../../src/core/agents/presets';
import {
  bareTemplates,
  codeCommand,
  promptStartProblem,
  splicedTemplates,
  takesText,
} from '../../src/core/agents/promptInput';
import { compilePlan } from '../../src/core/plan/compile';

const compile = (lines: string[]) => compilePlan('p.braid.yaml', lines.join('\n') + '\n', { isGit: false });

describe('promptInput: the rule', () => {
  it("the four agent CLIs take text; shell and every agent a plan defines do not, a preset's name included", () => {
    for (const name of ['claude', 'codex', 'gemini', 'aider']) assert.equal(takesText(PRESETS[name]!), true, name);
    assert.equal(takesText(PRESETS.shell!), false);
    const g = compile([
      'version: 1',
      'agents:',
      '  claude: { command: [sh, -c, "${{ prompt }}"] }',
      'steps:',
      '  a: { prompt: hi }',
    ]).graph!;
    assert.equal(takesText(g.agents.claude!), false, 'a replaced command is not known to take text');
    const t = compile([
      'version: 1',
      'agents:',
      '  claude: { command: [claude, -p, "${{ prompt }}"], input: text }',
      'steps:',
      '  a: { prompt: hi }',
    ]).graph!;
    assert.equal(takesText(t.agents.claude!), true);
  });

  it('a code command: the prompt as written, every template a reference named once across argv and stdin', () => {
    const c = codeCommand(
      { command: ['timeout', '600', 'sh', '-c', 'set -e; ${{ prompt }}', '--', '${{ steps.a-b.output }}'] },
      'echo ${{ steps.a_b.output }} ${{ matrix.k }}',
    );
    assert.deepEqual(c.command, [
      'timeout',
      '600',
      'sh',
      '-c',
      'set -e; echo ${BRAID_STEPS_A_B_OUTPUT} ${BRAID_MATRIX_K}',
      '--',
      '${BRAID_STEPS_A_B_OUTPUT_2}',
    ]);
    assert.deepEqual(
      c.vars.map((v) => [v.name, v.ref.expr]),
      [
        ['BRAID_STEPS_A_B_OUTPUT', 'steps.a_b.output'],
        ['BRAID_MATRIX_K', 'matrix.k'],
        ['BRAID_STEPS_A_B_OUTPUT_2', 'steps.a-b.output'],
      ],
    );
    const s = codeCommand(
      { command: ['xargs', '-0', 'sh', '-c', '${{ prompt }}'], stdin: 'prompt' },
      'echo "${{ context }}"',
    );
    assert.deepEqual(s.command, ['xargs', '-0', 'sh', '-c']);
    assert.equal(s.stdin, 'echo "${BRAID_CONTEXT}"');
  });

  it("a text agent's template must be a whole argument or an option's value", () => {
    assert.deepEqual(splicedTemplates('${{ prompt }}'), []);
    assert.deepEqual(splicedTemplates('--prompt=${{ prompt }}'), []);
    assert.deepEqual(splicedTemplates('plain'), []);
    for (const a of [
      "print('${{ prompt }}')",
      'x ${{ prompt }}',
      '${{ prompt }} x',
      '!${{ prompt }}',
      '--a=${{ prompt }}${{ matrix.k }}',
      '--a b=${{ prompt }}',
    ]) {
      assert.equal(splicedTemplates(a).length > 0, true, a);
    }
  });
});

describe('promptInput: where a CLI still reads options', () => {
  const bare = (...command: string[]) => bareTemplates({ command }).map((b) => [b.index, b.ref.expr, b.option]);

  it('a whole-argument template is out of reach only right after `--` (and the templates after it) or glued as --name=', () => {
    assert.deepEqual(bare('t', '--', '${{ prompt }}', '${{ matrix.k }}'), []);
    assert.deepEqual(bare('t', '--name=${{ prompt }}'), []);
    assert.deepEqual(bare('t', '${{ prompt }}'), [[1, 'prompt', undefined]]);
    assert.deepEqual(bare('${{ matrix.k }}'), [[0, 'matrix.k', undefined]], 'the executable itself');
    assert.deepEqual(bare('t', '--message', '${{ prompt }}'), [[2, 'prompt', '--message']]);
    // A `--` a wrapper reads is not the tool's: a word between them ends its reach.
    assert.deepEqual(bare('env', '--', 'mytool', '${{ matrix.k }}'), [[3, 'matrix.k', undefined]]);
    // A prompt on stdin is not in argv.
    assert.deepEqual(bareTemplates({ command: ['t', '${{ prompt }}'], stdin: 'prompt' }), []);
  });

  it('a prompt validation never saw (a resolution by another agent, a message to a session) is held to the rule when run', () => {
    const agent = { ...PRESETS.aider!, name: 'mytool', command: ['mytool', '${{ prompt }}'] };
    assert.throws(() => agentInvocation(agent, (t) => t, '--exec=touch x'), /argument 1 would start with "-"/);
    assert.deepEqual(agentInvocation(agent, (t) => t, 'fix --exec=touch x').argv, ['mytool', 'fix --exec=touch x']);
    const guarded = { ...agent, command: ['mytool', '--', '${{ prompt }}'] };
    assert.deepEqual(agentInvocation(guarded, (t) => t, '--exec=x').argv, ['mytool', '--', '--exec=x']);
    assert.deepEqual(agentInvocation(PRESETS.aider!, (t) => t, '- a list').argv.at(-1), '--message=- a list');
  });

  it('a bare prompt must start with plain text other than -', () => {
    assert.equal(promptStartProblem('review ${{ steps.a.output }}', 't'), undefined);
    assert.equal(promptStartProblem(' -x', 't'), undefined, 'an argument that starts with a space is no option');
    assert.equal(promptStartProblem('${{ steps.a.output }}', 't')?.ref?.expr, 'steps.a.output');
    assert.match(promptStartProblem('- item', 't')!.message, /^the prompt starts with "-"/);
  });
});

describe('promptInput: validation', () => {
  it('refuses a template inside a longer argument of a text agent, at the template, saying what to write', () => {
    const line = '    command: [mytool, "--x=a${{ matrix.k }}", "say ${{ prompt }}"]';
    const r = compile([
      'version: 1',
      'agents:',
      '  t:',
      line,
      '    input: text',
      'steps:',
      '  a: { agent: t, prompt: hi, matrix: { k: [1] } }',
    ]);
    const errors = r.diagnostics.filter((d) => d.code === 'spliced-template');
    assert.deepEqual(
      errors.map((d) => [d.message, d.range.start.line, d.range.start.column]),
      [
        [
          'agents.t.command[1]: ${{ matrix.k }} inside a longer argument: its value would become part of text this command may run as code; pass it as a whole argument ("${{ matrix.k }}") or as an option\'s value ("--name=${{ matrix.k }}")',
          3,
          line.indexOf('${{ matrix'),
        ],
        [
          'agents.t.command[2]: ${{ prompt }} inside a longer argument: its value would become part of text this command may run as code; pass it as a whole argument ("${{ prompt }}"), or let a shell read it from the environment, where the prompt always is: [bash, -c, \'mytool "$BRAID_PROMPT"\']',
          3,
          line.indexOf('${{ prompt'),
        ],
      ],
    );
    assert.equal(r.graph, undefined);
  });

  it('a bare prompt that a value or a - would start is refused at the prompt, or once at a context put in front', () => {
    const r = compile([
      'version: 1',
      'context: "- be brief"',
      'agents:',
      '  t: { command: [mytool, "${{ prompt }}"], input: text }',
      '  d: { command: [mytool, --, "${{ prompt }}"], input: text }',
      'steps:',
      '  a: { agent: t, prompt: one, writes: [a] }',
      '  b: { agent: t, prompt: two, writes: [b] }',
      '  c: { agent: d, prompt: "${{ plan.name }}", writes: [c] }',
      '  e: { agent: t, prompt: "${{ context }}", writes: [e] }',
    ]);
    assert.deepEqual(
      r.diagnostics.map((d) => [d.code, d.range.start.line, d.range.start.column, d.message.split(',')[0]]),
      [
        ['bare-prompt', 1, 9, 'context: the plan context'],
        ['bare-prompt', 9, 26, 'steps.e.prompt: the prompt starts with ${{ context }}'],
      ],
    );
  });

  it('the same command without `input: text` is code: no error, and the presets pass', () => {
    const r = compile([
      'version: 1',
      'agents:',
      '  t:',
      '    command: [bash, -c, "mytool ${{ prompt }}"]',
      '    input: code',
      'steps:',
      '  a: { agent: t, prompt: "x ${{ plan.name }}" }',
      '  g: { agent: gemini, prompt: hi, needs: [a] }',
    ]);
    assert.deepEqual(r.diagnostics, []);
  });

  it('warns once, at the agent, when `input` unsaid changes what a plan agent gets; not when it changes nothing', () => {
    const r = compile([
      'version: 1',
      'agents:',
      '  mine: { command: [mytool, "${{ prompt }}"] }',
      'steps:',
      '  a: { agent: mine, prompt: "see ${{ plan.name }}" }',
      '  b: { agent: mine, prompt: "and ${{ run.id }}" }',
    ]);
    const w = r.diagnostics.filter((d) => d.code === 'agent-input');
    assert.equal(w.length, 1);
    assert.equal(w[0]!.severity, 'warning');
    assert.equal(w[0]!.range.start.line, 2);
    assert.match(
      w[0]!.message,
      /^agents\.mine: `input` is not set, so mine is given its prompt as code: .* Add `input: text` if mine reads its prompt as text/,
    );
    const quiet = compile([
      'version: 1',
      'agents:',
      '  mine: { command: [mytool, "${{ prompt }}"] }',
      'steps:',
      '  a: { agent: mine, prompt: hi }',
    ]);
    assert.deepEqual(quiet.diagnostics, []);
    const withContext = compile([
      'version: 1',
      'context: c',
      'agents:',
      '  mine: { command: [mytool, "${{ prompt }}"] }',
      'steps:',
      '  a: { agent: mine, prompt: hi }',
    ]);
    assert.equal(
      withContext.diagnostics.filter((d) => d.code === 'agent-input').length,
      1,
      'the context would no longer be put in front',
    );
  });
});
