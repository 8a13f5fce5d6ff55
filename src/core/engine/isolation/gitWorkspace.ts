// Whether a plan's workspace is a git repository's top: `validate` asks it as `run` will, and
// without loading the engine (the CLI loads only what a command uses).
import { realpath } from 'node:fs';
import { resolve } from 'node:path';
import { git } from '../../exec/git';

/** True when dir is the top of a git work tree (worktree steps need one). */
export async function isGitWorkspace(dir: string): Promise<boolean> {
  const r = await git(['rev-parse', '--show-toplevel'], { cwd: dir });
  const top = r.stdout.trim();
  if (r.code !== 0 || top === '') return false;
  // node:fs's callback: validate loads node:fs/promises for nothing else (~4 ms of its start).
  const real = (p: string) => new Promise<string>((done) => realpath(p, (e, r) => done(e ? resolve(p) : r)));
  return (await real(top)) === (await real(dir));
}
