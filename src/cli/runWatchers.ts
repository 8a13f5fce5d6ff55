// The observers every run gets from where it is started (the CLI, the engine process): its trace
// when an OTLP endpoint is set (loaded only then), and its webhooks when the plan or the settings
// name some. One place, so `braid run` and VS Code observe a run alike.
import { webhookNotifier } from '../core/notify/webhookNotifier';
import type { TracingRequest } from '../core/telemetry/traceTarget';
import { tracingObserver } from '../core/telemetry/tracing';
import type { RunObserverFactory } from '../core/engine/runObservers';

export interface WatchOptions {
  readonly otel?: TracingRequest;
  /** Webhooks besides the plan's (the `braid.notify` setting). */
  readonly notify?: readonly string[];
  /** How a run held at its budget is answered there (the notice says it). */
  readonly budgetAnswer?: string;
}

export function runWatchers(
  env: Readonly<Record<string, string | undefined>>,
  o: WatchOptions,
  notice: (message: string) => void,
): RunObserverFactory[] {
  const tracing = tracingObserver(env, o.otel ?? {}, notice);
  return [
    ...(tracing ? [tracing] : []),
    webhookNotifier({
      ...(o.notify ? { extra: o.notify } : {}),
      ...(o.budgetAnswer ? { budgetAnswer: o.budgetAnswer } : {}),
    }),
  ];
}
