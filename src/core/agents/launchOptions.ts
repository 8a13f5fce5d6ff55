// What Braid adds to an agent CLI's command line and environment at launch, beyond the preset:
// its own retry loops bounded (retryBounds.ts) and the step's `max-cost-usd` passed to a CLI that
// can stop itself at a budget (claude `--max-budget-usd`), so the step is not canceled only after
// its agent finished and its work thrown away.
import type { AgentFamily } from './presets';
import { boundRetries, type BoundedInvocation } from './retryBounds';

export async function launchOptions(
  family: AgentFamily,
  argv: readonly string[],
  env: Readonly<Record<string, string>>,
  maxCostUsd?: number,
): Promise<BoundedInvocation> {
  const bounded = await boundRetries(family, argv, env);
  if (
    family !== 'claude' ||
    maxCostUsd === undefined ||
    bounded.argv.some((a) => a === '--max-budget-usd' || a.startsWith('--max-budget-usd='))
  )
    return bounded;
  // Before `--` (after it everything is the prompt); else at the end.
  const at = bounded.argv.indexOf('--');
  const flag = ['--max-budget-usd', String(maxCostUsd)];
  const argvOut =
    at === -1 ? [...bounded.argv, ...flag] : [...bounded.argv.slice(0, at), ...flag, ...bounded.argv.slice(at)];
  return { argv: argvOut, env: bounded.env };
}
