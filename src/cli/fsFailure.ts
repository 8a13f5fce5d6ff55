// File-system failures that are the machine's state, not Braid's bug (a full disk under .braid, a
// read-only mount): one line naming what happened and what to do, exit 1, instead of a stack trace.

const KNOWN: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is exceeded',
  EROFS: 'the file system is read-only',
  EIO: 'an I/O error from the disk',
};

/** The one line to print for `e`, or undefined when it is not such a failure (a bug: let it throw). */
export function fsFailureMessage(e: unknown): string | undefined {
  const err = e as NodeJS.ErrnoException | undefined;
  const what = err?.code ? KNOWN[err.code] : undefined;
  if (!what) return undefined;
  const where = err!.path ? ` writing ${err!.path}` : '';
  return `braid: ${what} (${err!.code}${where}); the run's record holds what happened up to then — free some space (or fix the mount) and check with braid status`;
}
