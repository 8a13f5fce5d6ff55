// `braid graph FILE [--format mermaid|json|dot]`: the expanded DAG.
import { parseArgs } from 'node:util';
import { formatDiagnostic } from '../../core/format';
import { err, out } from '../output';
import { Usage } from '../usage';

export async function graphCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { format: { type: 'string', default: 'mermaid' } },
  });
  return await graph(positionals[0], values.format);
}

async function graph(file: string | undefined, format: string): Promise<number> {
  if (!file) throw new Usage('graph needs a FILE');
  if (!['mermaid', 'json', 'dot'].includes(format))
    throw new Usage(`--format must be mermaid, json or dot, got ${format}`);
  const { compilePlanFile } = await import('../../core/plan/compile');
  const r = await compilePlanFile(file, { isGit: true });
  if (!r.graph) {
    for (const d of r.diagnostics) err(`${formatDiagnostic(d)}\n`);
    return 2;
  }
  const { toDot, toJson } = await import('../../core/plan/formats');
  out(
    format === 'json'
      ? JSON.stringify(toJson(r.graph), null, 2) + '\n'
      : format === 'dot'
        ? toDot(r.graph)
        : (await import('../../core/plan/mermaid')).toMermaid(r.graph).text + '\n',
  );
  return 0;
}
