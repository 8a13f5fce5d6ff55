// What a webhook is told, from the run's events: the run ended, a step waits for review or for a
// pick, the budget holds the run. One Slack-compatible body each (`text`), with the same facts as
// fields under `braid` for receivers that are not chat rooms. Pure: no network here.
import type { RunRecord } from '../engine/records/runRecord';
import type { EngineEvent } from '../engine/types';
import { formatUsd } from '../format';
import { STEP_STATUSES, type StepStatus } from '../status';

export type NotifyKind = 'run-ended' | 'review' | 'pick' | 'budget';

export interface Notice {
  /** Said once per key in a run (a step announced `review` twice is told once). */
  readonly key: string;
  readonly body: {
    readonly text: string;
    readonly braid: {
      readonly event: NotifyKind;
      readonly run: string;
      readonly plan: string;
      readonly workspace: string;
      readonly step?: string;
      readonly status?: string;
      /** What answers it, to type in the workspace. */
      readonly command?: string;
    };
  };
}

/** How the run's budget hold is answered where the run goes on (the engine: a window's Continue / Stop). */
export interface NotifyContext {
  readonly budgetAnswer: string;
}

function counts(record: Readonly<RunRecord>): string {
  const n = new Map<StepStatus, number>();
  for (const s of Object.values(record.steps)) n.set(s.status, (n.get(s.status) ?? 0) + 1);
  return STEP_STATUSES.filter((s) => (n.get(s) ?? 0) > 0)
    .map((s) => `${n.get(s)} ${s}`)
    .join(', ');
}

/** The notice an event calls for, or undefined (most events call for none). */
export function noticeFor(e: EngineEvent, record: Readonly<RunRecord>, ctx: NotifyContext): Notice | undefined {
  const base = { run: record.id, plan: record.planName, workspace: record.workspace };
  const where = `run ${record.id} of ${record.planName}`;
  if (e.type === 'run' && e.status !== 'started') {
    const cost = e.costUsd !== undefined ? `, ${formatUsd(e.costUsd)}` : '';
    const why = e.reason === 'budget' ? ' (it reached its budget)' : '';
    const command = e.status === 'succeeded' ? `braid status ${record.id}` : `braid retry ${record.id}`;
    return {
      key: 'run-ended',
      body: {
        text: `Braid: ${where} ${e.status}${why}: ${counts(record)}${cost}. ${command}`,
        braid: { ...base, event: 'run-ended', status: e.status, command },
      },
    };
  }
  if (e.type === 'step' && e.status === 'review') {
    const command = `braid approve ${record.id} ${e.id}`;
    return {
      key: `review:${e.id}`,
      body: {
        text: `Braid: step ${e.id} of ${where} waits for review: see its change with braid diff ${record.id} ${e.id}, then ${command} (or braid reject ${record.id} ${e.id}).`,
        braid: { ...base, event: 'review', step: e.id, status: e.status, command },
      },
    };
  }
  if (e.type === 'step' && e.status === 'waiting' && e.reason === 'pick') {
    const passed = (e.alternatives ?? []).filter((a) => a.status === 'succeeded').map((a) => a.index);
    const command = `braid pick ${record.id} ${e.id} N`;
    return {
      key: `pick:${e.id}`,
      body: {
        text: `Braid: step ${e.id} of ${where} waits for a pick among alternatives ${passed.join(', ') || 'that passed'}: ${command}.`,
        braid: { ...base, event: 'pick', step: e.id, status: e.status, command },
      },
    };
  }
  if (e.type === 'budget' && e.decision === undefined) {
    return {
      key: `budget:${e.budgetUsd}:${e.spentUsd}`,
      body: {
        text: `Braid: ${where} reached its budget (${formatUsd(e.spentUsd)} of ${formatUsd(e.budgetUsd)}): ${ctx.budgetAnswer}.`,
        braid: { ...base, event: 'budget', command: ctx.budgetAnswer },
      },
    };
  }
  return undefined;
}
