// The notifier against a webhook that never answers: told once, and the later events skip it, so
// a hung hook holds the run's end for one timeout, not one a event.
import { strict as assert } from 'node:assert';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunObserver, RunStart } from '../../src/core/engine/runObservers';
import type { RunRecord } from '../../src/core/engine/records/runRecord';
import { webhookNotifier } from '../../src/core/notify/webhookNotifier';
import { makeGraph } from '../helpers/graph';

describe('webhookNotifier', () => {
  it('a hook that gives no answer is told once and skipped after', async () => {
    const held: IncomingMessage[] = [];
    const server = createServer((req) => {
      held.push(req);
    }); // never answers
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    try {
      const record = { id: 'r1', planName: 'p', workspace: '/w', steps: {} } as unknown as RunRecord;
      const notices: string[] = [];
      const start: RunStart = {
        runId: 'r1',
        graph: makeGraph([{ id: 'a', run: 'true' }]),
        record,
        env: { HOOK: url },
        notice: (m) => notices.push(m),
      };
      const o = (await webhookNotifier({ extra: ['${{ env.HOOK }}'], timeoutMs: 1000 })(start)) as RunObserver;
      const time = new Date().toISOString();
      o.onEvent({ type: 'step', id: 'a', status: 'review', attempt: 1, time, run: 'r1' });
      o.onEvent({ type: 'budget', spentUsd: 2, budgetUsd: 1, time, run: 'r1' });
      o.onEvent({ type: 'run', status: 'failed', plan: 'p', steps: 1, time, run: 'r1' });
      await o.close();
      // The server holds every request it gets: one means the two later events never tried the hook.
      assert.equal(held.length, 1, 'the later events skipped the hung hook');
      assert.deepEqual(notices, [
        'notify: the webhook ${{ env.HOOK }} failed (no answer within 1 s); the run goes on, and later failures of it are not reported',
      ]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
