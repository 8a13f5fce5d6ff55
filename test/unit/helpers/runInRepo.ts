// runPlan in a test repository, as the engine runs it (its own isolator, locks and prepare-ahead),
// with the events kept; and the repository as its user sees it.
import { strict as assert } from 'node:assert';
import { runPlan, type RunRequest } from '../../../src/core/engine/runPlan';
import type { RunRecord } from '../../../src/core/engine/store';
import type { EngineEvent } from '../../../src/core/engine/types';
import { workspaceState, type TestRepo } from './gitRepo';

export async function runInRepo(r: TestRepo, plan: string, extra: Partial<RunRequest> = {}): Promise<{ record: RunRecord; events: EngineEvent[] }> {
  const events: EngineEvent[] = [];
  const outcome = await runPlan({
    planFile: plan, workspace: r.dir, graceMs: 200, ...extra,
    onEvent: (e) => { events.push(e); extra.onEvent?.(e); },
  });
  assert.ok(outcome.ok, JSON.stringify(outcome));
  return { record: outcome.record, events };
}

/** The workspace as the user sees it, Braid's own `.braid/` left out. */
export function userState(r: TestRepo): ReturnType<typeof workspaceState> {
  const s = workspaceState(r);
  for (const k of [...s.files.keys()]) if (k === '.braid' || k.startsWith('.braid/')) s.files.delete(k);
  return s;
}
