// #22 item 1: an agent whose shell runs the prompt (`agent: shell` is `sh -c ${{ prompt }}`, and
// custom `bash -c` or stdin shells) gets what a `run` step gets: each template becomes an
// environment-variable reference, so a dependency's output holding `$(…)` or backticks is data.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { plan } from '../helpers/planText';

const ROOT = resolve(__dirname, '../..');
const MAIN = join(ROOT, 'out/cli.js');

describe('shell agents and templates (no injection through the prompt)', function () {
  this.timeout(60_000);
  before(() => {
    assert.equal(spawnSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, stdio: 'inherit' }).status, 0);
  });

  it('a dependency output with $(…) and backticks runs as data in shell, bash -c and stdin agents', () => {
    const dir = mkdtempSync(join(tmpdir(), 'braid-shell-agent-'));
    writeFileSync(
      join(dir, 'p.braid.yaml'),
      plan`
        version: 1
        agents:
          bashc:
            command: [bash, -c, 'echo "custom: \${{ prompt }}"']
          stdinsh:
            command: [sh]
            stdin: prompt
        steps:
          src:
            run: printf '%s' '$(touch pwned1) \`touch pwned2\`'
          a:
            needs: [src]
            agent: shell
            prompt: echo \${{ steps.src.output }} "\${{ plan.name }}"
          b:
            needs: [src]
            agent: bashc
            prompt: \${{ steps.src.output }}
          c:
            needs: [src]
            agent: stdinsh
            prompt: echo "\${{ steps.src.output }}"
        `,
    );
    const r = spawnSync(process.execPath, [MAIN, 'run', join(dir, 'p.braid.yaml'), '--json'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    });
    assert.equal(r.status, 0, r.stderr);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; id?: string; text?: string });
    const out = (id: string) =>
      events
        .filter((e) => e.type === 'output' && e.id === id)
        .map((e) => e.text)
        .join('');
    const value = '$(touch pwned1) `touch pwned2`';
    assert.equal(out('a'), `${value} p\n`);
    assert.equal(out('b'), `custom: ${value}\n`);
    assert.equal(out('c'), `${value}\n`);
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.startsWith('pwned')),
      [],
      'no output became shell source',
    );
    assert.equal(existsSync(join(dir, 'pwned1')), false);
  });
});
