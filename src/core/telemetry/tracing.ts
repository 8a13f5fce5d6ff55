// A run's trace, loaded only when one is asked for: a run with no endpoint pays nothing, not even
// the SDK's module load. Only a run that traces imports otelTracer.ts (bundled apart as
// out/otelTracer.js, see esbuild.mjs).
import type { RunObserverFactory } from '../engine/runObservers';
import { traceTarget, type TracingRequest } from './traceTarget';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The observer that exports the run as a trace, or undefined when nothing asks for one (and then
 * nothing of OpenTelemetry is loaded). `problem` is told once through `notice`.
 */
export function tracingObserver(
  env: Env,
  req: TracingRequest,
  notice: (message: string) => void,
): RunObserverFactory | undefined {
  const { target, problem } = traceTarget(env, req);
  if (problem) notice(problem);
  if (!target) return undefined;
  return async (start) => (await import('./otelTracer')).traceRun(start, target);
}
