// out/cli.js (src/cli/bin.ts) compiles the CLI's bundle with V8's code cache: the second start uses
// what the first one left; a cache that is garbage, unwritable or made from other code of the same
// length changes nothing the command does.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCli, MAIN, ROOT } from '../helpers/cliRun';

function braid(cli: string, args: string[], cacheDir: string, cwd: string) {
  return spawnSync(process.execPath, [cli, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', BRAID_CODE_CACHE_DIR: cacheDir, BRAID_CODE_CACHE_DEBUG: '1' },
  });
}

describe('braid CLI: V8 code cache', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => assert.ok(buildCli()));
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'braid-codecache-'));
    writeFileSync(join(dir, 'p.braid.yaml'), 'version: 1\nname: one\nsteps:\n  a:\n    run: "true"\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("made by a command's first start, used by its next, one file a command and bundle", () => {
    const cache = join(dir, 'cache');
    const first = braid(MAIN, ['validate', 'p.braid.yaml'], cache, dir);
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stderr, /code cache made/);
    const second = braid(MAIN, ['validate', 'p.braid.yaml'], cache, dir);
    assert.equal(second.status, 0, second.stderr);
    assert.match(second.stderr, /code cache used/);
    assert.equal(second.stdout, first.stdout);
    assert.match(braid(MAIN, ['--help'], cache, dir).stderr, /code cache made/);
    assert.deepEqual(
      readdirSync(cache)
        .map((f) => f.replace(/^(cli(?:\.\w+)?)-[0-9a-f]+-.*-(\w+)$/, '$1 $2'))
        .sort(),
      ['cli other', 'cli.validate validate'],
    );
  });

  it("another build's caches go once an hour old, each bundle's by its own start", () => {
    const cache = join(dir, 'cache');
    assert.equal(braid(MAIN, ['validate', 'p.braid.yaml'], cache, dir).status, 0);
    const [current] = readdirSync(cache);
    const hoursAgo = new Date(Date.now() - 2 * 3_600_000);
    // An old build's cache of each bundle, and this build's validate cache, all two hours old.
    for (const f of ['cli-0ld-1-2-v8-x64-run', 'cli.validate-0ld-1-2-v8-x64-validate'])
      writeFileSync(join(cache, f), '');
    for (const f of readdirSync(cache)) utimesSync(join(cache, f), hoursAgo, hoursAgo);
    // main.js writes its cache and clears its own old builds' only: this build's validate cache stays.
    assert.equal(braid(MAIN, ['--help'], cache, dir).status, 0);
    const afterMain = readdirSync(cache);
    assert.ok(!afterMain.includes('cli-0ld-1-2-v8-x64-run'));
    assert.ok(afterMain.includes(current!) && afterMain.includes('cli.validate-0ld-1-2-v8-x64-validate'));
    rmSync(join(cache, current!));
    assert.equal(braid(MAIN, ['validate', 'p.braid.yaml'], cache, dir).status, 0);
    assert.ok(!readdirSync(cache).includes('cli.validate-0ld-1-2-v8-x64-validate'));
  });

  it('a garbage cache is rejected and replaced; an unwritable folder only costs the cache', () => {
    const cache = join(dir, 'cache');
    assert.equal(braid(MAIN, ['validate', 'p.braid.yaml'], cache, dir).status, 0);
    const [file] = readdirSync(cache);
    writeFileSync(join(cache, file!), 'not a code cache');
    const r = braid(MAIN, ['validate', 'p.braid.yaml'], cache, dir);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /code cache made/);
    assert.notEqual(readFileSync(join(cache, file!), 'utf8'), 'not a code cache');
    // The cache folder's place is a file: nothing can be written there.
    const blocked = join(dir, 'a-file');
    writeFileSync(blocked, '');
    const u = braid(MAIN, ['validate', 'p.braid.yaml'], join(blocked, 'cache'), dir);
    assert.equal(u.status, 0, u.stderr);
    assert.equal(u.stdout, '');
    assert.equal(u.stderr, 'braid: code cache made\n1 plan valid\n');
  });

  it("a bundle changed to other code of the same length never runs the old code's cache", () => {
    // A copy of the build: its bundle is edited here, the shared out/ is not.
    const copy = join(dir, 'build');
    mkdirSync(join(copy, 'cli'), { recursive: true });
    copyFileSync(MAIN, join(copy, 'cli.js'));
    copyFileSync(join(ROOT, 'out/cli/main.js'), join(copy, 'cli/main.js'));
    const cache = join(dir, 'cache');
    const before = braid(join(copy, 'cli.js'), ['--help'], cache, dir);
    assert.match(before.stdout, /run a plan of agent and shell steps in parallel/);
    const bundle = join(copy, 'cli/main.js');
    const text = readFileSync(bundle, 'utf8');
    writeFileSync(
      bundle,
      text.replace(
        'run a plan of agent and shell steps in parallel',
        'RUN A PLAN OF AGENT AND SHELL STEPS IN PARALLEL',
      ),
    );
    const after = braid(join(copy, 'cli.js'), ['--help'], cache, dir);
    assert.equal(after.status, 0, after.stderr);
    assert.match(after.stdout, /RUN A PLAN OF AGENT AND SHELL STEPS IN PARALLEL/);
  });
});
