// #22 items 14 and 15: a step reading many large outputs starts (values past exec's space go by
// file), and every need's result is in a run step's environment under its documented name.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const MAIN = join(ROOT, 'out/cli.js');
const runJson = (plan: string, cwd: string) => {
  const r = spawnSync(process.execPath, [MAIN, 'run', plan, '--json', '--workspace', cwd], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    maxBuffer: 1 << 28,
  });
  const events = r.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; id?: string; text?: string; status?: string; message?: string });
  const out = (id: string) =>
    events
      .filter((e) => e.type === 'output' && e.id === id)
      .map((e) => e.text)
      .join('');
  return { r, events, out };
};

describe('large values and needs in the environment', function () {
  this.timeout(120_000);
  before(() => {
    assert.equal(spawnSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, stdio: 'inherit' }).status, 0);
  });

  it('40 outputs of 64 KiB referenced by one step: it runs and reads every byte (was exit 126)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'braid-large-'));
    const n = 40;
    const lines = ['version: 1', 'steps:'];
    for (let i = 0; i < n; i++) lines.push(`  s${i}:`, "    run: head -c 65536 /dev/zero | tr '\\0' a");
    const refs = Array.from({ length: n }, (_, i) => `\${{ steps.s${i}.output }}`).join('');
    lines.push(
      '  all:',
      `    needs: [${Array.from({ length: n }, (_, i) => `s${i}`).join(', ')}]`,
      `    run: printf '%s' "${refs}" | wc -c; test -f "$BRAID_STEPS_S0_OUTPUT_FILE" && echo by-file`,
    );
    writeFileSync(join(dir, 'p.braid.yaml'), lines.join('\n') + '\n');
    const { r, out } = runJson(join(dir, 'p.braid.yaml'), dir);
    assert.equal(r.status, 0, r.stderr.slice(-2000));
    assert.equal(out('all').replace(/ +/g, ''), `${n * 65536}\nby-file\n`);
  });

  it('examples/diamond.braid.yaml: $BRAID_STEPS_BACKEND_OUTPUT is set though no template names it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'braid-diamond-'));
    const { r, out } = runJson(join(ROOT, 'examples/diamond.braid.yaml'), dir);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(out('tests'), 'server implements {"theme":"dark|light"}\nweb renders {"theme":"dark|light"}\n');
  });
});
