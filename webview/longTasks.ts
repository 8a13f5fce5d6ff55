// The page's longest task since it loaded, in ms, on <body data-longest-task-ms> (a testability
// contract, read by the e2e suite and the bench): the graph must never hold the page's thread so
// long that a click or a keystroke waits (issue #35: 200 ms at most, whatever the plan's size).
// The page's own first script evaluation (the bundle, before anything is drawn) is not counted:
// it is reported too, as the observer starts inside it; the bench times the open as a whole.

export function recordLongTasks(): void {
  if (!PerformanceObserver.supportedEntryTypes?.includes('longtask')) return;
  let longest = 0;
  const since = performance.now();
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.startTime >= since) longest = Math.max(longest, Math.round(e.duration));
    document.body.setAttribute('data-longest-task-ms', String(longest));
  }).observe({ type: 'longtask' });
  document.body.setAttribute('data-longest-task-ms', '0');
}
