// `braid validate FILE...` runs out/cli/validate.js, a bundle without the engine (src/cli/bundleFor.ts,
// docs/decisions/cli-start.md), and ends as main.js would have: the same lines, the same exit codes.
// What could regress silently: validate loading main.js again (the code it reads and deserialises
// triples), or the plan's modules starting to import the engine's (validate.js would carry them).
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCli, MAIN, ROOT } from '../helpers/cliRun';

describe('braid CLI: validate runs a bundle of its own', function () {
  this.timeout(60_000);
  let dir: string;
  let hook: string;
  before(() => assert.ok(buildCli()));
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'braid-validate-bundle-'));
    writeFileSync(join(dir, 'p.braid.yaml'), 'version: 1\nname: one\nsteps:\n  a:\n    run: "true"\n');
    // Notes every script out/cli.js compiles (it runs its bundle with vm.Script), and every
    // process started through execFile, on stderr.
    hook = join(dir, 'hook.js');
    writeFileSync(
      hook,
      `const vm = require('node:vm');
const Script = vm.Script;
vm.Script = function (source, options) {
  process.stderr.write('compiled ' + require('node:path').basename(options.filename) + '\\n');
  return new Script(source, options);
};
const cp = require('node:child_process');
const execFile = cp.execFile;
cp.execFile = function (file, args, ...rest) {
  process.stderr.write('started ' + file + ' ' + args.join(' ') + '\\n');
  return execFile.call(this, file, args, ...rest);
};
`,
    );
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const braid = (args: string[]) =>
    spawnSync(process.execPath, ['--require', hook, MAIN, ...args], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', BRAID_CODE_CACHE: 'off' },
    });
  const compiled = (stderr: string) => [...stderr.matchAll(/^compiled (.*)$/gm)].map((m) => m[1]);

  it('validate FILE compiles validate.js alone; a bad plan says the same through it', () => {
    const ok = braid(['validate', 'p.braid.yaml']);
    assert.equal(ok.status, 0, ok.stderr);
    assert.deepEqual(compiled(ok.stderr), ['validate.js']);
    // git is asked for the plan's workspace before the bundle is read, and only then.
    assert.deepEqual(
      ok.stderr.split('\n').filter((l) => /^(started|compiled) /.test(l)),
      ['started git rev-parse --show-toplevel', 'compiled validate.js'],
    );
    assert.match(ok.stderr, /^1 plan valid$/m);
    writeFileSync(join(dir, 'bad.braid.yaml'), 'version: 1\nsteps:\n  a:\n    run: 3\n');
    const bad = braid(['validate', 'bad.braid.yaml', 'p.braid.yaml']);
    assert.equal(bad.status, 1);
    assert.deepEqual(compiled(bad.stderr), ['validate.js']);
    assert.match(bad.stdout, /^bad\.braid\.yaml:4:10: error: .*got 3$/m);
  });

  it('what ends in the help (no FILE, --help) runs main.js', () => {
    const none = braid(['validate']);
    assert.equal(none.status, 2);
    assert.deepEqual(compiled(none.stderr), ['main.js']);
    assert.match(none.stderr, /^braid: validate needs at least one FILE\n\nbraid — run a plan/m);
    const help = braid(['validate', 'p.braid.yaml', '--help']);
    assert.equal(help.status, 0);
    assert.deepEqual(compiled(help.stderr), ['main.js']);
    assert.match(help.stdout, /^usage:$/m);
  });

  it('a .braid that is a file: one line naming it, exit 2, as main.js says it', () => {
    writeFileSync(join(dir, '.braid'), 'not a folder\n');
    const r = braid(['validate', 'p.braid.yaml']);
    assert.equal(r.status, 2);
    assert.equal(
      r.stderr,
      `started git rev-parse --show-toplevel\ncompiled validate.js\nbraid: ${join(dir, '.braid')} is a file, not a folder: Braid keeps its runs and locks there; move it away\n`,
    );
  });

  it("validate loads none of Node's modules it does not use (node:fs/promises, node:crypto: ~5 ms of a start)", () => {
    // Node's own list of the built-in modules this process loaded, printed as it exits.
    const list = join(dir, 'list.js');
    writeFileSync(
      list,
      `process.on('exit', () => process.stderr.write('builtins ' + process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13)).join(' ') + '\\n'));\n`,
    );
    const r = spawnSync(process.execPath, ['--require', list, MAIN, 'validate', 'p.braid.yaml'], {
      cwd: dir,
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    const builtins = /^builtins (.*)$/m.exec(r.stderr)?.[1]?.split(' ') ?? [];
    // It asks git (child_process), so the check would see a module loaded.
    assert.ok(builtins.includes('child_process'), r.stderr);
    assert.deepEqual(
      builtins.filter((m) => ['fs/promises', 'crypto'].includes(m)),
      [],
    );
  });

  it("validate.js holds the plan's modules and none of the engine's", () => {
    // esbuild names each module it bundles in a `// path` line above its code.
    const modules = [...readFileSync(join(ROOT, 'out/cli/validate.js'), 'utf8').matchAll(/^\/\/ (src\/\S+)$/gm)].map(
      (m) => m[1]!,
    );
    assert.ok(modules.includes('src/core/plan/compile.ts'), 'no module names found in validate.js');
    // Its one engine module asks git whether a folder is a work tree's top, as `run` will.
    const engine = modules.filter(
      (m) =>
        /^src\/(core\/engine|core\/exec|cli\/engine|cli\/mcp|extension|protocol)\//.test(m) &&
        !['src/core/engine/isolation/gitWorkspace.ts', 'src/core/exec/git.ts'].includes(m),
    );
    assert.deepEqual(engine, []);
    const main = readFileSync(join(ROOT, 'out/cli/main.js'), 'utf8');
    assert.ok(main.includes('// src/core/engine/runPlan.ts'), 'the check would pass on any bundle');
  });
});
