// `braid status [RUN-ID] [--json]`: the last (or named) run's steps, their times, spending and why each ended.
import { parseArgs } from 'node:util';
import { costText } from '../../core/cost/costText';
import type { StepRecord } from '../../core/engine/records/runRecord';
import { timeFactsOf } from '../../core/engine/records/timeFacts';
import { stepTimeText } from '../../core/format';
import { endSentence, shownStatus } from '../../core/status';
import { fsFailureMessage } from '../fsFailure';
import { err, out } from '../output';
import { workspaceForCwd } from '../workspace';

export async function status(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false }, workspace: { type: 'string' } },
  });
  const { RunStore } = await import('../../core/engine/records/runStore');
  const store = new RunStore(workspaceForCwd(values.workspace));
  // Reading needs no space: a record that cannot be updated is shown as it is.
  await store.markInterrupted().catch((e: unknown) => {
    const fs = fsFailureMessage(e);
    if (!fs) throw e;
    err(`${fs}\n`);
  });
  const id = positionals[0] ?? (await store.latest())?.id;
  const rec = id ? await store.load(id) : undefined;
  if (!rec) {
    err(id ? `braid: unknown run ${id}\n` : 'braid: no runs here\n');
    return 1;
  }
  const cost =
    rec.costUsd !== undefined
      ? { costUsd: rec.costUsd, ...(rec.costSource ? { costSource: rec.costSource } : {}) }
      : {};
  if (values.json) {
    out(
      JSON.stringify({ id: rec.id, plan: rec.planName, status: rec.status, ...cost, steps: rec.steps }, null, 2) + '\n',
    );
    return 0;
  }
  out(
    `run ${rec.id} · ${rec.planName} · ${rec.status}${rec.costUsd !== undefined ? ` · ${costText(rec.costUsd, rec.costSource)}` : ''}\n`,
  );
  const now = Date.now();
  for (const s of Object.values(rec.steps)) {
    const why = endSentence(s);
    // Time spent running; the wall time apart when retry delays or waits made it longer.
    const t = stepTimeText(timeFactsOf(s), now);
    const time = t ? ` · ${t.time}${t.wall ? ` (${t.wall})` : ''}` : '';
    out(
      `  ${shownStatus(s).padEnd(11)} ${s.id}${time}${s.attempts.length > 1 ? ` · ${s.attempts.length} attempts` : ''}${spendText(s)}${why ? ` · ${why}` : ''}\n`,
    );
  }
  return 0;
}

/** ` · 12,345 in / 678 out tokens · $0.0400 est.` for a step whose agent counted tokens or a cost. */
function spendText(s: StepRecord): string {
  const tokens =
    s.inputTokens !== undefined
      ? ` · ${s.inputTokens.toLocaleString('en-US')} in / ${(s.outputTokens ?? 0).toLocaleString('en-US')} out tokens`
      : '';
  const unknown = s.attempts.map((a) => a.costUnknown).find((u) => u !== undefined);
  const cost =
    s.costUsd !== undefined ? ` · ${costText(s.costUsd, s.costSource)}` : unknown !== undefined ? ` · ${unknown}` : '';
  return tokens + cost;
}
