// `git rev-parse --show-toplevel` in a folder, without waiting: its answer (the top, or '' outside a
// repository) comes while the caller goes on. out/cli.js asks it for `braid validate` before it
// even reads the bundle (bundleFor.ts); workspace.ts for every other command.
import { execFile } from 'node:child_process';

/** The git top-level containing `dir`, or '' when there is none (or git cannot be run there). */
export const askGitTop = (dir: string): Promise<string> =>
  new Promise((done) => {
    execFile('git', ['rev-parse', '--show-toplevel'], { cwd: dir }, (e, stdout) => done(e ? '' : stdout.trim()));
  });
