// The glob matcher (src/core/paths/glob.ts) agrees with picomatch on the syntax plans use, and
// takes time linear in pattern × path where picomatch's regular expressions backtrack.
import { strict as assert } from 'node:assert';
import picomatch from 'picomatch';
import { compileGlob, globMatcher, globProblem, MAX_BRACE_ALTERNATIVES } from '../../src/core/paths/glob';

const PATTERNS = [
  '*',
  '**',
  '**/*',
  'src/**',
  'src/**/*.ts',
  'src/*.ts',
  '*.md',
  'docs/*',
  'docs/**/x',
  '**/x',
  'a/**/b/**/c',
  'src/?.ts',
  'src/[ab].ts',
  'src/[^ab].ts',
  'src/[a-c]*.ts',
  'file[0-9].txt',
  '[[:digit:]]*',
  '{src,test}/**',
  'src/{a,b}.ts',
  'out/{a,b/{c,d}}/*',
  'v{1..3}.txt',
  'x{a..c}',
  'a{b}c',
  '\\*.md',
  'a\\?b',
  'research-*',
  '*-x-*',
  '*a*a*a',
  'review-*',
  'a*',
  '*b',
  '.env',
  '.*',
  '*/.git/**',
  '**/.cache',
  'build/**',
  './src/**',
  'src/',
  'src',
  '!src/**',
  '!*.md',
  'a/*/b',
  'a/**',
  '**/a/**',
  '*.{js,ts}',
  '**/*.{md,txt}',
];
const PATHS = [
  'src',
  'src/a.ts',
  'src/b.ts',
  'src/c.ts',
  'src/x/y.ts',
  'src/ab.ts',
  'test/a.ts',
  'README.md',
  'docs/a.md',
  'docs/x',
  'docs/q/x',
  'x',
  'a/b/c',
  'a/x/b/y/c',
  'a/b',
  'a/q/b',
  'file1.txt',
  'filex.txt',
  '7up',
  'v2.txt',
  'v4.txt',
  'xb',
  'xd',
  'abc',
  'a{b}c',
  '*.md',
  'a?b',
  'aXb',
  'research-1',
  'research',
  'y-x-z',
  'aXaYa',
  'aa',
  'ab',
  'b',
  '.env',
  '.git',
  'sub/.git/x',
  'p/.git/config',
  '.cache',
  'q/.cache',
  'build/out.js',
  'build',
  'out/a/z',
  'out/b/c/z',
  'out/b/z',
  'a.js',
  'a.ts',
  'a.tsx',
  'docs/n.md',
  'docs/deep/n.txt',
  'src/.hidden.ts',
  '.github/workflows/ci.yml',
];

describe('glob matcher', () => {
  for (const dot of [false, true]) {
    it(`agrees with picomatch on ${PATTERNS.length} patterns × ${PATHS.length} paths (dot: ${dot})`, () => {
      const differ: string[] = [];
      for (const p of PATTERNS) {
        const ours = compileGlob(p, { dot });
        assert.ok('match' in ours, `${p}: ${'error' in ours ? ours.error : ''}`);
        const theirs = picomatch(p, { dot });
        for (const path of PATHS)
          if (ours.match(path) !== theirs(path)) differ.push(`${p} ~ ${path}: picomatch ${theirs(path)}`);
      }
      assert.deepEqual(differ, []);
    });
  }

  it('`[!ab]` is a negated class, as in the shell (picomatch 4.0.7 matches a and b with it instead)', () => {
    const m = compileGlob('src/[!ab].ts');
    assert.ok('match' in m);
    assert.deepEqual(['src/a.ts', 'src/b.ts', 'src/c.ts'].map(m.match), [false, false, true]);
  });

  it('a pattern that makes picomatch backtrack for years matches at once', () => {
    const pattern = '*a'.repeat(30);
    const name = `${'a'.repeat(100)}b`;
    const m = compileGlob(pattern);
    assert.ok('match' in m);
    assert.equal(m.match(name), false);
    assert.equal(m.match('a'.repeat(100)), true);
    assert.equal(globMatcher(['**/' + pattern], { dot: true })(`x/y/${name}`), false);
  });

  it('refuses extglobs, runaway braces and overlong globs with a reason', () => {
    assert.match(globProblem('src/+(a|b).ts') ?? '', /extglobs are not supported/);
    assert.match(globProblem('@(x)') ?? '', /extglobs/);
    assert.match(
      globProblem('{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}') ?? '',
      new RegExp(`more than ${MAX_BRACE_ALTERNATIVES}`),
    );
    assert.match(globProblem('{1..100000}') ?? '', /more than/);
    assert.match(globProblem('a'.repeat(1001)) ?? '', /at most 1000 characters/);
    assert.equal(globProblem('src/(a).ts'), undefined, 'a parenthesis alone is a literal');
    assert.throws(() => globMatcher(['+(a)']), /extglobs/);
  });
});
