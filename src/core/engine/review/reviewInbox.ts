// How `braid approve | reject | merge | revert` reach a run whose process is still going (a CLI
// run in another terminal, or the engine beside a VS Code window): a request file dropped in the
// run's `inbox/` folder, which that process watches and carries out, answering with a reply file.
// Files, not a socket: every run has a folder, only the VS Code engine has a socket.
import { randomUUID } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { mkdir, readFile, readdir, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { exact } from '../../exact';

export const REVIEW_ACTIONS = ['approve', 'reject', 'merge', 'revert'] as const;
export type ReviewAction = (typeof REVIEW_ACTIONS)[number];

export interface ReviewRequest {
  readonly action: ReviewAction;
  readonly steps: readonly string[];
  /** `reject`: why, kept in the step's message. */
  readonly reason?: string;
  /** Who asks (`braid approve (pid 4242)`): the loser of a decision is told who won it (decisionClaim.ts). */
  readonly by?: string;
}

/** One step's outcome: its status after, or why nothing was done. */
export type StepOutcome =
  | {
      step: string;
      ok: true;
      status: string;
      message?: string;
      /** It landed on an ended run: its dependents that have not run (`braid retry RUN` runs them). */
      dependents?: string[];
    }
  | { step: string; ok: false; message: string };

const requestSchema = z.object({
  action: z.enum(REVIEW_ACTIONS),
  steps: z.array(z.string().min(1).max(200)).min(1).max(1000),
  reason: z.string().max(2000).optional(),
  by: z.string().max(200).optional(),
});
/** Each step's outcome of a review request, as the inbox replies and the webview's protocol carries it. */
export const reviewResultsSchema = z.array(
  z.union([
    z.object({
      step: z.string(),
      ok: z.literal(true),
      status: z.string(),
      message: z.string().optional(),
      dependents: z.array(z.string()).optional(),
    }),
    z.object({ step: z.string(), ok: z.literal(false), message: z.string() }),
  ]),
);
const replySchema = z.object({
  /** The whole request was refused (a step in the wrong state): nothing was done. */
  refused: z.string().optional(),
  results: reviewResultsSchema,
});

const REQ = '.req.json';
const REPLY = '.reply.json';

/** The folder a run's process watches for requests. */
export function inboxDir(runDir: string): string {
  return join(runDir, 'inbox');
}

async function writeAtomic(file: string, text: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, file);
}

/**
 * The run's side: carries out each request dropped in the inbox, one at a time, and answers it.
 * Requests already waiting when it opens are taken too. `close` stops taking them and waits for the one in hand.
 */
export type Handled = StepOutcome[] | { refused: string };

export async function openInbox(
  runDir: string,
  handle: (req: ReviewRequest) => Promise<Handled>,
): Promise<{ close(): Promise<void> }> {
  const dir = inboxDir(runDir);
  await mkdir(dir, { recursive: true });
  const seen = new Set<string>();
  let chain = Promise.resolve();
  let closed = false;
  const take = (name: string): void => {
    if (closed || !name.endsWith(REQ) || seen.has(name)) return;
    seen.add(name);
    chain = chain.then(() => serve(name)).catch(() => undefined);
  };
  const serve = async (name: string): Promise<void> => {
    const file = join(dir, name);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
      // Taken: a requester that gives up (our process seemed gone) finds it missing and knows.
      await unlink(file);
    } catch {
      return; // withdrawn by its requester
    }
    let reply: { results: StepOutcome[]; refused?: string };
    const parsed = (() => {
      try {
        return requestSchema.safeParse(JSON.parse(text));
      } catch {
        // Not JSON: answered below as a malformed request.
        return undefined;
      }
    })();
    if (!parsed?.success) reply = { results: [], refused: 'not a valid request' };
    else {
      try {
        const h = await handle(exact(parsed.data));
        reply = Array.isArray(h) ? { results: h } : { results: [], refused: h.refused };
      } catch (e) {
        reply = { results: [], refused: `the run's process failed to do it: ${(e as Error).message}` };
      }
    }
    await writeAtomic(join(dir, name.slice(0, -REQ.length) + REPLY), JSON.stringify(reply));
  };
  const watcher: FSWatcher = watch(dir, (_event, name) => {
    if (typeof name === 'string') take(name);
  });
  watcher.on('error', () => undefined);
  for (const name of await readdir(dir)) take(name);
  return {
    close: async () => {
      closed = true;
      watcher.close();
      await chain;
    },
  };
}

export type Posted =
  { ok: true; results: StepOutcome[] } | { ok: false; reason: 'gone' | 'lost' | 'refused'; message: string };

/**
 * The requester's side: drops the request and waits for its reply while `alive()` says the run's
 * process still runs it (checked every `checkMs`; a reply wakes it at once). `gone`: it ended before taking the request (which is
 * withdrawn: do it yourself); `lost`: it took the request and ended without answering.
 */
export async function postToInbox(
  runDir: string,
  req: ReviewRequest,
  alive: () => boolean | Promise<boolean>,
  checkMs = 500,
): Promise<Posted> {
  const dir = inboxDir(runDir);
  await mkdir(dir, { recursive: true });
  const id = randomUUID();
  const reqFile = join(dir, id + REQ);
  const replyFile = join(dir, id + REPLY);
  const readReply = async (): Promise<Posted | undefined> => {
    let text: string;
    try {
      text = await readFile(replyFile, 'utf8');
    } catch {
      // No reply yet.
      return undefined;
    }
    await unlink(replyFile).catch(() => undefined);
    const parsed = (() => {
      try {
        return replySchema.safeParse(JSON.parse(text));
      } catch {
        // Not JSON: treated as no reply.
        return undefined;
      }
    })();
    if (!parsed?.success)
      return { ok: false, reason: 'lost', message: "the run's process answered with something unreadable" };
    const { refused, results } = parsed.data;
    return refused !== undefined
      ? { ok: false, reason: 'refused', message: refused }
      : { ok: true, results: exact(results) };
  };
  return new Promise<Posted>((resolve) => {
    let done = false;
    let watcher: FSWatcher | undefined;
    const finish = (p: Posted): void => {
      if (done) return;
      done = true;
      watcher?.close();
      if (timer) clearInterval(timer);
      resolve(p);
    };
    const look = async (): Promise<void> => {
      const reply = await readReply();
      if (reply) return finish(reply);
      if (done || (await alive())) return;
      // Its process is gone: withdraw the request if it was never taken.
      try {
        await unlink(reqFile);
        finish({ ok: false, reason: 'gone', message: "the run's process ended before it took the request" });
      } catch {
        // Already taken: its reply is on its way (or here).
        const late = await readReply();
        finish(
          late ?? {
            ok: false,
            reason: 'lost',
            message: "the run's process ended while it carried out the request: see `braid status`",
          },
        );
      }
    };
    watcher = watch(dir, (_e, name) => {
      if (name === id + REPLY) void look();
    });
    watcher.on('error', () => undefined);
    // The checks start once the request is on disk: a check before that would find no request to
    // withdraw, take a gone process for one that took it, and leave the request behind for a later one.
    let timer: NodeJS.Timeout | undefined;
    writeAtomic(reqFile, JSON.stringify(req)).then(
      () => {
        if (done) return;
        timer = setInterval(() => void look(), checkMs);
        void look();
      },
      (e: Error) => finish({ ok: false, reason: 'gone', message: `could not write the request: ${e.message}` }),
    );
  });
}
