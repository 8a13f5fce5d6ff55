// Shared by the extension-host suites: the extension's API, the test workspace, plan files
// written on the fly, and run records read back from disk to check against what commands say.
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import type { RunRecord } from '../../../src/core/engine/records/runRecord';
import type { BraidApi } from '../../../src/extension/extension';

export const EXTENSION_ID = 'braid.braid';

/** Polls until `check` returns a truthy value; the workbench does many things asynchronously. */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const since = Date.now();
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() - since > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

export async function braidApi(): Promise<BraidApi> {
  const ext = vscode.extensions.getExtension<BraidApi>(EXTENSION_ID);
  if (!ext) throw new Error(`${EXTENSION_ID} is not installed`);
  return ext.activate();
}

export function workspaceRoot(): string {
  const f = vscode.workspace.workspaceFolders?.[0];
  if (!f) throw new Error('the test runs without a workspace folder');
  return f.uri.fsPath;
}

/** Writes a plan under the workspace's `plans/` and returns its uri. */
export async function writePlan(name: string, yaml: string): Promise<vscode.Uri> {
  const file = join(workspaceRoot(), 'plans', `${name}.braid.yaml`);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, yaml);
  return vscode.Uri.file(file);
}

export function runRecord(runId: string): RunRecord {
  return JSON.parse(readFileSync(join(workspaceRoot(), '.braid', 'runs', runId, 'run.json'), 'utf8')) as RunRecord;
}

export function statusesOf(record: RunRecord): Record<string, string> {
  return Object.fromEntries(Object.entries(record.steps).map(([id, s]) => [id, s.status]));
}
