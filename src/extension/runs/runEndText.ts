// What the run-end notification says (no vscode here, so it is unit-tested).

/** The run-end notification's sentence for a run that did not succeed: what went wrong, or how far it got. */
export function endMessage(
  name: string,
  status: string,
  statuses: readonly string[],
  failed: readonly string[],
  took = '',
): string {
  if (failed.length > 0) {
    const list = `${failed.slice(0, 3).join(', ')}${failed.length > 3 ? `, and ${failed.length - 3} more` : ''}`;
    return `Braid: ${name} ${status}${took} — ${failed.length} step${failed.length === 1 ? '' : 's'} failed: ${list}.`;
  }
  const finished = statuses.filter((s) => s === 'succeeded').length;
  return `Braid: ${name} ${status}${took} — ${finished} of ${statuses.length} step${statuses.length === 1 ? '' : 's'} had succeeded.`;
}
