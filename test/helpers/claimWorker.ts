// One side of a cross-process decision race (test/integration/decisions.test.ts): a process of
// its own, as a second terminal's `braid approve` is, that claims the change it is told to the
// moment the parent says go, and answers what the claim said. Forked with IPC; the parent sends
// every side of a pair its `go` in one turn of its loop, so the claims meet inside the filesystem.
import { claimDecision } from '../../src/core/engine/review/decisionClaim';

export interface Go {
  readonly dir: string;
  readonly key: string;
}
export type Answer =
  | { readonly key: string; readonly won: true }
  | { readonly key: string; readonly won: false; readonly by: string; readonly action: string };

const action = process.argv[2] === 'reject' ? 'reject' : 'approve';
const by = `claimWorker ${action} (pid ${process.pid})`;

process.on('message', (m: Go) => {
  claimDecision(m.dir, m.key, { action, by, at: new Date().toISOString() }).then(
    (c) =>
      process.send!(
        c.ok ? { key: m.key, won: true } : { key: m.key, won: false, by: c.decided.by, action: c.decided.action },
      ),
    (e: unknown) => {
      process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
      process.exit(2);
    },
  );
});
process.send!('ready');
