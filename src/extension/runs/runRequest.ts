// What a run command asks the engine (src/protocol/engine.ts `run` and `retry`): the steps a key of
// the plan names, and what the window adds from its settings (concurrency, prices, its own traces
// and webhooks, the compile options), so a run from the palette, a lens, the graph or a task asks
// the same. No vscode here: the requests are plain data.
import type { CompileOptions } from '../../core/plan/compile';
import type { Graph } from '../../core/plan/types';
import type { RequestParams } from '../../protocol/engine';
import type { BraidSettings } from '../common/config';

/** Which steps of the plan run: `only` these (with what they need), `from` one on, or all. */
export type Selection = { readonly only?: readonly string[]; readonly from?: string; readonly fresh?: boolean };

/** Step keys as written in the plan: a matrix step once, by its key. */
export function stepKeys(graph: Graph): string[] {
  const keys = new Set<string>();
  for (const id of graph.order) keys.add(graph.steps.get(id)!.matrix?.group ?? id);
  return [...keys];
}

/** The concrete steps a key names: itself, or every member of a matrix step. */
export function stepsOfKey(graph: Graph, key: string): string[] {
  if (graph.steps.has(key)) return [key];
  return graph.order.filter((id) => graph.steps.get(id)!.matrix?.group === key);
}

/** A run of `planFile` (compiled as `graph`) with these steps, these compile options and settings. */
export function runParams(
  planFile: string,
  graph: Graph,
  sel: Selection,
  options: CompileOptions,
  settings: BraidSettings,
): RequestParams<'run'> {
  return {
    planFile,
    ...(sel.only ? { only: sel.only } : {}),
    ...(sel.from ? { from: sel.from } : {}),
    ...(sel.fresh ? { fresh: true } : {}),
    // The plan's own concurrency wins over the setting.
    ...(graph.plan.concurrency === undefined ? { concurrency: settings.concurrency } : {}),
    compile: engineCompileOptions(options),
    ...pricesOf(settings),
    ...watchOf(settings),
  };
}

/** A retry of run `runId` (its `steps`, or every failed one), with the settings as they are now. */
export function retryParams(
  runId: string,
  steps: readonly string[] | undefined,
  resume: boolean,
  options: CompileOptions,
  settings: BraidSettings,
): RequestParams<'retry'> {
  return {
    runId,
    compile: engineCompileOptions(options),
    ...watchOf(settings),
    ...(steps ? { steps } : {}),
    ...(resume ? { resume } : {}),
    ...pricesOf(settings),
  };
}

/** The compile options the engine takes from the window: all but `isGit`, which it finds itself. */
export function engineCompileOptions(o: CompileOptions): NonNullable<RequestParams<'run'>['compile']> {
  const { isGit: _found, ...rest } = o;
  return rest;
}

function pricesOf(s: BraidSettings): Pick<RequestParams<'run'>, 'prices'> {
  return Object.keys(s.prices).length > 0 ? { prices: { ...s.prices } } : {};
}

/** The settings' own trace endpoint and webhooks, for the engine to add to the run's. */
function watchOf(s: BraidSettings): Pick<RequestParams<'run'>, 'watch'> {
  if (s.otelEndpoint === undefined && s.notify.length === 0) return {};
  return {
    watch: {
      ...(s.otelEndpoint !== undefined ? { otelEndpoint: s.otelEndpoint } : {}),
      ...(s.notify.length > 0 ? { notify: s.notify } : {}),
    },
  };
}
