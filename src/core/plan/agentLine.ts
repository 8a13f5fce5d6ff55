// Where a step says which agent it runs: the `agent:` line among the step's own keys, so a
// problem with the agent (its CLI is missing) points there rather than at the step's name.
import type { Range } from './types';

const AGENT_KEY = /^(\s*)("agent"|'agent'|agent)\s*:/;

/**
 * The range of the `agent: …` line of the step whose key is on line `stepLine` (0-based), or
 * undefined when the step has none of its own (it runs the plan's default agent).
 */
export function agentLineRange(lines: readonly string[], stepLine: number): Range | undefined {
  const keyLine = lines[stepLine];
  if (keyLine === undefined) return undefined;
  const stepIndent = keyLine.search(/\S/);
  let childIndent: number | undefined;
  for (let i = stepLine + 1; i < lines.length; i++) {
    const line = lines[i]!;
    const indent = line.search(/\S/);
    if (indent < 0 || line.trimStart().startsWith('#')) continue;
    if (indent <= stepIndent) return undefined; // the next step (or the end of `steps:`)
    childIndent ??= indent;
    if (indent !== childIndent) continue; // inside a nested value (a prompt's text, a matrix)
    const m = AGENT_KEY.exec(line);
    if (m) return { start: { line: i, column: indent }, end: { line: i, column: line.trimEnd().length } };
  }
  return undefined;
}
