// shellScriptOf: which agent commands hand the prompt to a shell as source (#22 item 1).
import { strict as assert } from 'node:assert';
import { PRESETS } from '../../src/core/agents/presets';
import { shellScriptOf } from '../../src/core/agents/shellScript';

describe('shellScriptOf', () => {
  const of = (command: string[], stdin?: 'prompt') => shellScriptOf({ command, ...(stdin ? { stdin } : {}) });
  it('the shell preset runs its prompt as the -c script', () => assert.equal(shellScriptOf(PRESETS.shell!), 2));
  it('other shells, option clusters holding c, env and busybox in front', () => {
    assert.equal(of(['bash', '-lc', 'x ${{ prompt }}']), 2);
    assert.equal(of(['/bin/zsh', '-e', '-c', '${{ prompt }}']), 3);
    assert.equal(of(['env', 'A=1', 'B=2', 'dash', '-c', '${{ prompt }}']), 5);
    assert.equal(of(['busybox', 'sh', '-c', '${{ prompt }}']), 3);
  });
  it('a shell reading its script on stdin', () => assert.equal(of(['sh', '-s'], 'prompt'), 'stdin'));
  it('not a shell script: the agent CLIs, a script file, a shell given the prompt as an argument', () => {
    for (const name of ['claude', 'codex', 'gemini', 'aider']) assert.equal(shellScriptOf(PRESETS[name]!), undefined, name);
    assert.equal(of(['sh', 'run.sh', '${{ prompt }}']), undefined);
    assert.equal(of(['shellcheck', '-c', '${{ prompt }}']), undefined);
    assert.equal(of(['python3', '-c', '${{ prompt }}']), undefined);
  });
});
