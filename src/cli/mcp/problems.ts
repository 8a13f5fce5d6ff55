// Plan problems as the MCP tools give them: 1-based lines and columns (as `braid validate` prints
// them and editors count), the file relative to the workspace.
import { z } from 'zod';
import type { Diagnostic } from '../../core/plan/types';

export const problemSchema = z.object({
  file: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  endLine: z.number().int(),
  endColumn: z.number().int(),
  severity: z.enum(['error', 'warning', 'info']),
  code: z.string(),
  message: z.string(),
});
export type Problem = z.infer<typeof problemSchema>;

export function problemOf(d: Diagnostic, shown: (abs: string) => string): Problem {
  return {
    file: shown(d.file),
    line: d.range.start.line + 1,
    column: d.range.start.column + 1,
    endLine: d.range.end.line + 1,
    endColumn: d.range.end.column + 1,
    severity: d.severity,
    code: d.code,
    message: d.message,
  };
}

/** `plan.braid.yaml:3:5: error: …`, one line a problem: the text an agent reads first. */
export const problemLines = (ps: readonly Problem[]): string =>
  ps.map((p) => `${p.file}:${p.line}:${p.column}: ${p.severity}: ${p.message}`).join('\n');
