// Mocha runs without `exit: true`, so a test that leaves a timer, socket, watcher or child behind keeps
// the process alive. Rather than hang the suite, the process fails a grace period after the last test,
// naming what is still open. The timer is unref'd: a clean suite exits at once, as if it were not here.
const GRACE_MS = 10_000;

export function mochaGlobalTeardown(): void {
  setTimeout(() => {
    const open = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap');
    process.stderr.write(
      `\nThe tests left handles open ${GRACE_MS / 1000}s after the last one ended: ${open.join(', ')} (one Timeout is this check's).\n` +
        'Close them in the test that opened them (an after/afterEach hook).\n',
    );
    // Mocha sets the exit code to its failure count in an 'exit' listener of its own; this one runs after it.
    process.on('exit', () => {
      process.exitCode = 1;
    });
    process.exit(1);
  }, GRACE_MS).unref();
}
