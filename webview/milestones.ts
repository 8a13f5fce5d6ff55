// When the page reached each step of its start, as epoch ms on <body data-t-NAME> (a testability
// contract, read by bench/graphOpen.ts): the page's navigation, its script running, its `ready`, the
// first graph message, so the wait from the command to the first node splits into the workbench's,
// the page's and the host's parts.

export type Milestone = 'nav' | 'script' | 'ready' | 'graph';

/** Marks `name` now (or at `at`, performance.now() ms), once: the first time is the one that counts. */
export function milestone(name: Milestone, at = performance.now()): void {
  const attr = `data-t-${name}`;
  if (!document.body.hasAttribute(attr))
    document.body.setAttribute(attr, String(Math.round(performance.timeOrigin + at)));
}
