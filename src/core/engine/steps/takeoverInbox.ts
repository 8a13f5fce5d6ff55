// How `braid attach` and `braid say` reach a run whose process is still going (a CLI run in another
// terminal, or the engine beside a VS Code window): files in the run's `takeover/` folder, as review
// requests reach it through `inbox/` (reviewInbox.ts). A request is answered at once (taken, or
// why not); an attach then gets `<id>.open.json` (the CLI to open, where) from the run, and the run
// waits, its attempt still going, until the requester writes `<id>.done` or its process is gone.
import { randomUUID } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { mkdir, readFile, readdir, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { exact } from '../../exact';
import { pidAlive } from '../../exec/pidAlive';
import type { Handover, TakeoverAnswer, Takeovers } from './takeover';

const MESSAGE_MAX = 16_000;

const requestSchema = z.union([
  z.object({ kind: z.literal('attach'), step: z.string().min(1).max(200), pid: z.number().int().positive() }),
  z.object({ kind: z.literal('say'), step: z.string().min(1).max(200), message: z.string().min(1).max(MESSAGE_MAX) }),
]);
export type TakeoverRequest = z.infer<typeof requestSchema>;

const answerSchema = z.union([
  z.object({ ok: z.literal(true) }),
  z.object({ ok: z.literal(false), message: z.string() }),
]);
const openSchema = z.object({
  cwd: z.string(),
  argv: z.array(z.string()).min(1),
  env: z.record(z.string(), z.string()),
  resumed: z.string().optional(),
  why: z.string().optional(),
});

/** The folder a run's process watches for takeovers. */
export function takeoverDir(runDir: string): string {
  return join(runDir, 'takeover');
}

async function writeAtomic(file: string, text: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, file);
}

const exists = (file: string): Promise<boolean> =>
  readFile(file).then(
    () => true,
    () => false,
  );

/** Waits until `ready()` (woken by the folder's changes, and every `everyMs` for what a watch misses). */
function until(dir: string, ready: () => Promise<boolean>, signal?: AbortSignal, everyMs = 250): Promise<boolean> {
  return new Promise((resolve) => {
    let done = false;
    let watcher: FSWatcher | undefined;
    const finish = (v: boolean): void => {
      if (done) return;
      done = true;
      watcher?.close();
      clearInterval(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(v);
    };
    const look = (): void => {
      void ready().then(
        (r) => {
          if (r) finish(true);
        },
        () => undefined,
      );
    };
    const onAbort = (): void => finish(false);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      watcher = watch(dir, look);
      watcher.on('error', () => undefined);
    } catch {
      /* polled instead */
    }
    const timer = setInterval(look, everyMs);
    if (signal?.aborted) finish(false);
    else look();
  });
}

/**
 * The run's side: each request is handed to `takeovers` and answered. `onSay` records a message
 * in the step's record once it was taken. `close` stops taking requests.
 */
export async function openTakeoverInbox(
  runDir: string,
  takeovers: Takeovers,
  onSay: (step: string, message: string) => void,
): Promise<{ close(): void }> {
  const dir = takeoverDir(runDir);
  await mkdir(dir, { recursive: true });
  const seen = new Set<string>();
  let closed = false;
  const serve = async (name: string): Promise<void> => {
    const id = name.slice(0, -'.req.json'.length);
    let req: TakeoverRequest | undefined;
    try {
      const text = await readFile(join(dir, name), 'utf8');
      await unlink(join(dir, name));
      const parsed = requestSchema.safeParse(JSON.parse(text));
      if (parsed.success) req = parsed.data;
    } catch {
      return; // withdrawn, or not JSON: answered below only when read
    }
    let answer: TakeoverAnswer;
    if (!req) answer = { ok: false, message: 'not a valid request' };
    else if (req.kind === 'say') {
      answer = takeovers.request(req.step, { kind: 'say', message: req.message });
      if (answer.ok) onSay(req.step, req.message);
    } else {
      const pid = req.pid;
      answer = takeovers.request(req.step, {
        kind: 'attach',
        handover: async (h: Handover, signal: AbortSignal) => {
          await writeAtomic(join(dir, `${id}.open.json`), JSON.stringify(h));
          // The person's terminal is the requester: once it is gone, so is the session.
          await until(dir, async () => (await exists(join(dir, `${id}.done`))) || !pidAlive(pid), signal, 1000);
          await unlink(join(dir, `${id}.done`)).catch(() => undefined);
        },
      });
    }
    await writeAtomic(join(dir, `${id}.answer.json`), JSON.stringify(answer));
  };
  const take = (name: string | null): void => {
    if (closed || typeof name !== 'string' || !name.endsWith('.req.json') || seen.has(name)) return;
    seen.add(name);
    void serve(name).catch(() => undefined);
  };
  const watcher = watch(dir, (_e, name) => take(name));
  watcher.on('error', () => undefined);
  for (const name of await readdir(dir)) take(name);
  return {
    close: () => {
      closed = true;
      watcher.close();
    },
  };
}

export type Posted = { ok: true; open?: Handover & { done(): Promise<void> } } | { ok: false; message: string };

/**
 * The requester's side: drops the request, waits for the answer while `alive()` (the run's process
 * runs), and for an attach, for the CLI to open. `done()` tells the run the person left it.
 */
export async function postTakeover(runDir: string, req: TakeoverRequest, alive: () => boolean): Promise<Posted> {
  const dir = takeoverDir(runDir);
  await mkdir(dir, { recursive: true });
  const id = randomUUID();
  const file = (ext: string) => join(dir, `${id}${ext}`);
  await writeAtomic(file('.req.json'), JSON.stringify(req));
  const answered = await until(dir, async () => (await exists(file('.answer.json'))) || !alive());
  const text = answered ? await readFile(file('.answer.json'), 'utf8').catch(() => undefined) : undefined;
  if (text === undefined) {
    await unlink(file('.req.json')).catch(() => undefined);
    return { ok: false, message: "the run's process ended before it took the request" };
  }
  await unlink(file('.answer.json')).catch(() => undefined);
  const answer = answerSchema.parse(JSON.parse(text));
  if (!answer.ok || req.kind === 'say') return answer;
  await until(dir, async () => (await exists(file('.open.json'))) || !alive());
  const open = await readFile(file('.open.json'), 'utf8').catch(() => undefined);
  if (open === undefined) return { ok: false, message: "the run's process ended before it handed the step over" };
  await unlink(file('.open.json')).catch(() => undefined);
  const h = exact(openSchema.parse(JSON.parse(open)));
  return { ok: true, open: { ...h, done: () => writeAtomic(file('.done'), '') } };
}
