// A worktree step's check (or command) that failed because a tool the workspace has under
// node_modules/.bin is not in the worktree: node_modules is ignored, so no worktree has it unless
// the step links it in. The failure says so, instead of leaving "vitest: not found" to be read.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const NOT_FOUND = /(?:^|[\s:])([A-Za-z0-9@._+-]+): (?:command )?not found/gm;
const TAIL = 16 * 1024;

/** Keeps the end of what a command printed on both streams, to read why it failed. */
export class OutputTail {
  private text = '';
  add(text: string): void {
    this.text = (this.text + text).slice(-TAIL);
  }
  get value(): string {
    return this.text;
  }
}

/**
 * The hint for a failure in worktree `tree` of `workspace`: the tools it did not find (the shell's
 * "X: not found", or the command's own words when it exited 127) that the workspace has under
 * node_modules/.bin and the worktree has not. Undefined when none.
 */
export function nodeModulesHint(o: {
  workspace: string;
  tree: string;
  command: string;
  exitCode: number | null;
  output: string;
}): string | undefined {
  if (o.tree === o.workspace || existsSync(join(o.tree, 'node_modules'))) return undefined;
  const named = new Set([...o.output.matchAll(NOT_FOUND)].map((m) => m[1]!));
  if (o.exitCode === 127)
    for (const w of o.command.split(/[\s;&|()]+/)) if (/^[A-Za-z0-9@._+-]+$/.test(w)) named.add(w);
  const tools = [...named].filter(
    (t) => t !== '.' && t !== '..' && existsSync(join(o.workspace, 'node_modules', '.bin', t)),
  );
  if (tools.length === 0) return undefined;
  return `${tools.join(', ')} ${tools.length === 1 ? 'is' : 'are'} in the workspace's node_modules/.bin, which the worktree lacks: add \`symlink: [node_modules]\` to the step`;
}
