// Word off the machine: the plan's `notify:` webhooks (and the `braid.notify` setting's) are
// POSTed a Slack-compatible JSON body when the run ends, a step waits for review or a pick, or the
// budget holds the run. A webhook that fails is told once (with its host, never its path, where
// the secret is) and never fails the run; the run's end waits for what is in flight, bounded.
import type { RunObserver, RunObserverFactory, RunStart } from '../engine/runObservers';
import type { EngineEvent } from '../engine/types';
import { noticeFor, type Notice, type NotifyContext } from './notifyText';
import { resolveWebhook, shownWebhook } from '../plan/webhookUrl';

export interface NotifyOptions extends Partial<NotifyContext> {
  /** Webhooks besides the plan's (the `braid.notify` setting), written as the plan's are. */
  readonly extra?: readonly string[];
  /** How long one POST may take. */
  readonly timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;

interface Hook {
  readonly url: string;
  readonly shown: string;
  /** Posts to one webhook go one after the other, so it hears the events in their order. */
  chain: Promise<void>;
  told: boolean;
  /** It once gave no answer in time: later posts skip it, so a hung hook cannot hold the run's end for each event. */
  hung: boolean;
}

class WebhookNotifier implements RunObserver {
  private readonly sent = new Set<string>();

  constructor(
    private readonly hooks: readonly Hook[],
    private readonly start: RunStart,
    private readonly ctx: NotifyContext,
    private readonly timeoutMs: number,
  ) {}

  onEvent(e: EngineEvent): void {
    const n = noticeFor(e, this.start.record, this.ctx);
    if (!n || this.sent.has(n.key)) return;
    this.sent.add(n.key);
    for (const h of this.hooks) h.chain = h.chain.then(() => this.post(h, n));
  }

  private async post(h: Hook, n: Notice): Promise<void> {
    if (h.hung) return;
    let problem: string | undefined;
    try {
      const res = await fetch(h.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(n.body),
        signal: AbortSignal.timeout(this.timeoutMs),
        redirect: 'error',
      });
      await res.arrayBuffer().catch(() => undefined); // drain, so the connection is free
      if (!res.ok) problem = `HTTP ${res.status}`;
    } catch (e) {
      const err = e as Error & { cause?: { code?: string; message?: string } };
      if (err.name === 'TimeoutError') h.hung = true;
      problem =
        err.name === 'TimeoutError'
          ? `no answer within ${this.timeoutMs >= 1000 ? `${Math.round(this.timeoutMs / 1000)} s` : `${this.timeoutMs} ms`}`
          : (err.cause?.code ?? err.cause?.message ?? err.message);
    }
    if (problem !== undefined && !h.told) {
      h.told = true;
      this.start.notice(
        `notify: the webhook ${h.shown} failed (${problem}); the run goes on, and later failures of it are not reported`,
      );
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.hooks.map((h) => h.chain));
  }
}

/** The notifier of a run, or none when neither the plan nor the settings name a webhook. */
export function webhookNotifier(options: NotifyOptions = {}): RunObserverFactory {
  return (start) => {
    const written = [...(start.graph.plan.notify ?? []), ...(options.extra ?? [])];
    const hooks: Hook[] = [];
    const seen = new Set<string>();
    for (const value of written) {
      const r = resolveWebhook(value, start.env);
      if ('problem' in r) {
        start.notice(`notify: no word goes to ${shownWebhook(value)}: ${r.problem}`);
        continue;
      }
      if (seen.has(r.url)) continue;
      seen.add(r.url);
      hooks.push({
        url: r.url,
        shown: shownWebhook(value.includes('${{') ? value : r.url),
        chain: Promise.resolve(),
        told: false,
        hung: false,
      });
    }
    if (hooks.length === 0) return undefined;
    const ctx: NotifyContext = {
      budgetAnswer:
        options.budgetAnswer ??
        `the run stops there (braid run asks no one): raise max-cost-usd, then braid retry ${start.runId}`,
    };
    return new WebhookNotifier(hooks, start, ctx, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  };
}
