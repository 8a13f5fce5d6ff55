// The plan's `notify:` webhooks, checked where they are written (webhookUrl.ts says what is wrong).
import { webhookProblems } from './webhookUrl';
import type { Report } from './reporter';

export function checkNotify(notify: readonly string[] | undefined, report: Report): void {
  (notify ?? []).forEach((value, i) => {
    for (const p of webhookProblems(value)) report(['notify', i], p.message, 'notify', { severity: p.severity });
  });
}
