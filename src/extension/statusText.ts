// How statuses read and look in every view (tree, lenses, status bar, notifications): one place.
import * as vscode from 'vscode';
import type { RunStatus, StepStatus } from '../core/engine/types';

export const STATUS_LABEL: Readonly<Record<StepStatus, string>> = {
  pending: '○ pending',
  waiting: '⏳ waiting',
  running: '▶ running',
  succeeded: '✓ succeeded',
  failed: '✗ failed',
  skipped: '⤼ skipped',
  canceled: '⊘ canceled',
  conflict: '⚠ conflict',
  interrupted: '⚡ interrupted',
};

const ICON: Readonly<Record<StepStatus | RunStatus, [string, string?]>> = {
  pending: ['circle-outline'],
  waiting: ['watch', 'charts.yellow'],
  running: ['loading~spin', 'charts.blue'],
  succeeded: ['pass', 'testing.iconPassed'],
  failed: ['error', 'testing.iconFailed'],
  skipped: ['debug-step-over', 'disabledForeground'],
  canceled: ['circle-slash', 'disabledForeground'],
  conflict: ['git-merge', 'list.warningForeground'],
  interrupted: ['debug-disconnect', 'list.warningForeground'],
};

export function statusIcon(status: StepStatus | RunStatus): vscode.ThemeIcon {
  const [id, color] = ICON[status];
  return new vscode.ThemeIcon(id, color ? new vscode.ThemeColor(color) : undefined);
}

/** 850ms, 12.3s, 4m 05s, 1h 02m. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(Math.floor(s % 60)).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

/** How long a step has run, as every view shows it: live while it runs, its recorded duration after. */
export function stepTime(step: { readonly status: string; readonly startedAt?: number; readonly durationMs?: number }, now = Date.now()): string | undefined {
  if (step.status === 'running' && step.startedAt !== undefined) return formatDuration(Math.max(0, now - step.startedAt));
  return step.durationMs !== undefined ? formatDuration(step.durationMs) : undefined;
}

/** $0.042, $1.20, $12.3 */
export function formatCost(usd: number): string {
  if (usd < 0.1) return `$${usd.toFixed(3)}`;
  if (usd < 10) return `$${usd.toFixed(2)}`;
  return `$${usd.toFixed(1)}`;
}
