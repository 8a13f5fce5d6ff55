// How every bundle of the CLI (main.ts, validateMain.ts) runs its command to an exit code, so that
// a command ends alike whichever bundle ran it.
import { fsFailureMessage } from './fsFailure';
import { err } from './output';
import { WorkspaceError } from './workspace';

/** The exit code of an expected failure, said in one line (a workspace Braid cannot use, a full disk); undefined for a bug. */
export function expectedFailure(e: unknown): number | undefined {
  if (e instanceof WorkspaceError) {
    err(`braid: ${e.message}\n`);
    return 2;
  }
  const fs = fsFailureMessage(e);
  if (fs) {
    err(`${fs}\n`);
    return 1;
  }
  return undefined;
}

/** Runs a command and sets the exit code: its own, or 70 with the stack of what it threw. */
export function startCommand(command: () => Promise<number>): void {
  // A reader that went away (`braid status | head -1`, a closed terminal) ends what is printed,
  // not the command: a write's EPIPE is no crash and no stack trace.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  command().then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      err(`braid: internal error: ${(e as Error).stack}\n`);
      process.exitCode = 70;
    },
  );
}
