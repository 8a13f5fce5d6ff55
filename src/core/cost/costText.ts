// A cost as every face shows it: the amount, and "est." when Braid estimated it from tokens and a
// price table (a provider's bill may differ), so a reported figure and an estimate never read alike.
import { formatUsd } from '../format';
import type { CostSource } from './agentUsage';

/** `$0.5200` (reported), `$0.5600 est.`, `$1.08 partly est.` (a sum of both). */
export function costText(usd: number, source: CostSource | undefined): string {
  return `${formatUsd(usd)}${source === 'estimated' ? ' est.' : source === 'mixed' ? ' partly est.' : ''}`;
}

/** What a step with tokens but no price shows: `cost unknown: no price for MODEL` shortened for a cell. */
export function unknownCostText(sentence: string): string {
  return sentence.replace(/^cost unknown: /, 'unknown: ');
}
