// How statuses read and look in every view (tree, lenses, status bar, notifications): one place.
import * as vscode from 'vscode';
import type { RunStatus, StepStatus } from '../../core/status';

export const STATUS_LABEL: Readonly<Record<StepStatus, string>> = {
  pending: '○ pending',
  waiting: '⏳ waiting',
  running: '▶ running',
  review: '👁 review',
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
  review: ['eye', 'charts.green'],
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
