// The run's inbox on its own: requests answered in order, a request to a process that is gone
// withdrawn (so the requester does it itself), a refusal carried back as such.
import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inboxDir, openInbox, postToInbox, type ReviewRequest } from '../../src/core/engine/review/reviewInbox';

describe('review inbox', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'braid-inbox-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('answers each request with what the run did, one at a time, and leaves no file behind', async () => {
    const seen: ReviewRequest[] = [];
    const inbox = await openInbox(dir, async (r) => {
      seen.push(r);
      return r.steps.map((step) => ({ step, ok: true as const, status: 'succeeded' }));
    });
    try {
      const [x, y] = await Promise.all([
        postToInbox(dir, { action: 'approve', steps: ['a'] }, () => true),
        postToInbox(dir, { action: 'reject', steps: ['b', 'c'], reason: 'no' }, () => true),
      ]);
      assert.deepEqual(x, { ok: true, results: [{ step: 'a', ok: true, status: 'succeeded' }] });
      assert.deepEqual(y, {
        ok: true,
        results: [
          { step: 'b', ok: true, status: 'succeeded' },
          { step: 'c', ok: true, status: 'succeeded' },
        ],
      });
      assert.equal(seen.length, 2);
      assert.deepEqual(readdirSync(inboxDir(dir)), []);
    } finally {
      await inbox.close();
    }
  });

  it('a refusal comes back as one, not as results', async () => {
    const inbox = await openInbox(dir, async () => ({
      refused: 'step a is running, not in review: nothing to approve; nothing was done',
    }));
    try {
      assert.deepEqual(await postToInbox(dir, { action: 'approve', steps: ['a'] }, () => true), {
        ok: false,
        reason: 'refused',
        message: 'step a is running, not in review: nothing to approve; nothing was done',
      });
    } finally {
      await inbox.close();
    }
  });

  it('withdraws a request nobody took once the run’s process is gone', async () => {
    // Checked every millisecond, so a check can fall before the request is written: it must not count.
    const posted = await postToInbox(dir, { action: 'approve', steps: ['a'] }, () => false, 1);
    assert.equal(posted.ok, false);
    assert.equal(!posted.ok && posted.reason, 'gone');
    assert.deepEqual(readdirSync(inboxDir(dir)), [], 'the request file is gone: no later process will carry it out');
    assert.equal(existsSync(join(inboxDir(dir), 'x')), false);
  });

  it('takes requests that were waiting before it opened', async () => {
    mkdirSync(inboxDir(dir));
    const dropped = new Promise<void>((resolve) => {
      const w = watch(inboxDir(dir), (_e, name) => {
        if (name?.endsWith('.req.json')) {
          w.close();
          resolve();
        }
      });
    });
    const pending = postToInbox(dir, { action: 'merge', steps: ['s'] }, () => true);
    await dropped;
    const inbox = await openInbox(dir, async (r) =>
      r.steps.map((step) => ({ step, ok: true as const, status: 'succeeded' })),
    );
    try {
      assert.deepEqual(await pending, { ok: true, results: [{ step: 's', ok: true, status: 'succeeded' }] });
    } finally {
      await inbox.close();
    }
  });
});
