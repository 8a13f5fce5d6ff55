// What a resolution's agent is told (`on-conflict: resolve`): its change could not land, what
// landed meanwhile is merged into its folder, which files hold conflict markers and who changed
// each (the steps that landed there, or the user). The whole prompt of a resumed session, which
// holds the task already; after the step's own prompt in a new one.

/** The note about the conflict: `changedBy` names the steps whose landed change touched each file (none: the user's own edits). */
export function conflictNote(files: readonly string[], changedBy: ReadonlyMap<string, readonly string[]>): string {
  const list = files.map((f) => {
    const by = changedBy.get(f) ?? [];
    const who =
      by.length === 0
        ? 'edited in the workspace by the user, not by a step'
        : `changed by step${by.length > 1 ? 's' : ''} ${by.join(', ')}`;
    return `- ${f} (${who})`;
  });
  const parts =
    files.length > 0
      ? [
          'Your change could not land: the same files changed in the workspace while you worked. What landed there is now merged into your working folder, and these files hold git conflict markers where both sides changed the same lines:',
          list.join('\n'),
          'Between `<<<<<<< HEAD` and `=======` is what the workspace has now; between `=======` and the `>>>>>>>` line is your change. Resolve every conflict so that both changes survive as each meant, remove every marker line, and change nothing else. The files are also listed in the environment variable BRAID_CONFLICT_FILES, one path a line.',
        ]
      : [
          'Your change could not land at first: the workspace changed while you worked. What landed there is now merged into your working folder without a conflict. Check that your change still does what the task asks, and change nothing else.',
        ];
  return parts.join('\n\n');
}
