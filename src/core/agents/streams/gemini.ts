// Gemini CLI's `--output-format stream-json`: JSON lines `init` (session_id, model), `message`
// (role user|assistant; assistant text arrives as `delta: true` pieces to be joined), `tool_use`
// (tool_name, tool_id, parameters), `tool_result` (tool_id, status, output, error), `error`
// (severity, message: warnings and API errors such as quota) and one `result` (status, error,
// stats: total/input/output tokens, cached, duration_ms, tool_calls). Also reads the single
// object of `--output-format json` (`response`, `stats`, `error`), printed over several lines.
import { addModel, LineStream, note, num, obj, str, textLines, type JsonObject } from './lineStream';
import { oneLine, toolLine } from './toolLine';
import type { ParsedLine } from './types';

export class GeminiStream extends LineStream {
  private pending = ''; // assistant deltas not yet ended by a newline
  private sinceTool = ''; // assistant text after the last tool call: the answer, as gemini's own json output counts it
  private beforeTool = '';
  private tools = new Map<string, string>();
  private events = 0;
  private noiseLines: string[] = [];

  protected event(e: JsonObject, out: ParsedLine[]): void {
    this.events++;
    const s = this.summary;
    switch (e.type) {
      case 'init':
        note(s, 'sessionId', str(e.session_id));
        note(s, 'model', str(e.model));
        out.push({ kind: 'info', text: `· session ${s.sessionId ?? '?'}${s.model ? ` · ${s.model}` : ''}` });
        return;
      case 'message':
        if (e.role === 'assistant' && typeof e.content === 'string') this.text(e.content, e.delta === true, out);
        return;
      case 'tool_use': {
        this.flush(out);
        if (this.sinceTool.trim() !== '') this.beforeTool = this.sinceTool;
        this.sinceTool = '';
        const name = str(e.tool_name) ?? 'tool';
        this.tools.set(str(e.tool_id) ?? '', name);
        out.push({ kind: 'tool', text: toolLine(name, e.parameters) });
        return;
      }
      case 'tool_result':
        if (e.status === 'error') {
          const name = this.tools.get(str(e.tool_id) ?? '') ?? 'tool';
          out.push({
            kind: 'error',
            text: `✗ ${name}: ${oneLine(str(obj(e.error)?.message) ?? str(e.output) ?? 'failed')}`,
          });
        }
        return;
      case 'error':
        this.flush(out);
        if (e.severity === 'warning') out.push({ kind: 'info', text: `· warning: ${oneLine(str(e.message) ?? '')}` });
        else this.error(str(e.message) ?? 'error', out);
        return;
      case 'result':
        this.flush(out);
        this.stats(obj(e.stats));
        if (e.status === 'error') {
          s.isError = true;
          this.error(str(obj(e.error)?.message) ?? 'gemini ended with an error', out);
        }
        out.push({
          kind: 'info',
          text: `· ${s.isError ? 'failed' : 'done'}${s.inputTokens !== undefined ? ` · ${s.inputTokens} in / ${s.outputTokens ?? 0} out tokens` : ''}`,
        });
        return;
      default:
        if (e.type === undefined && ('response' in e || 'stats' in e)) this.single(e, out);
        return;
    }
  }

  protected override noise(line: string, out: ParsedLine[]): void {
    if (this.events === 0 && this.noiseLines.length < 100_000) this.noiseLines.push(line);
    super.noise(line, out);
  }

  protected override finish(out: ParsedLine[]): void {
    this.flush(out);
    const answer = this.sinceTool.trim() !== '' ? this.sinceTool : this.beforeTool;
    if (answer.trim() !== '') this.summary.finalText = answer.trim();
    if (this.events === 0 && this.noiseLines.length > 0) {
      // `--output-format json` pretty-prints one object over many lines.
      try {
        const v = obj(JSON.parse(this.noiseLines.join('\n')) as unknown);
        if (v) this.single(v, out);
      } catch {
        /* plain text after all */
      }
    }
  }

  private single(e: JsonObject, out: ParsedLine[]): void {
    const s = this.summary;
    note(s, 'sessionId', str(e.session_id));
    const response = str(e.response);
    if (response !== undefined) s.finalText = response;
    const err = obj(e.error);
    if (err) {
      s.isError = true;
      this.error(str(err.message) ?? 'gemini ended with an error', out);
    }
    const stats = obj(e.stats);
    // The json format nests per-model token counts under stats.models.<name>.tokens.
    const models = obj(stats?.models);
    if (models) {
      for (const [name, m] of Object.entries(models)) {
        const t = obj(obj(m)?.tokens);
        const input = num(t?.prompt) ?? 0,
          candidates = num(t?.candidates) ?? 0,
          thoughts = num(t?.thoughts) ?? 0;
        addModel(s, name, { input, cached: num(t?.cached) ?? 0, output: candidates + thoughts, reasoning: thoughts });
      }
    }
  }

  // Per model: input_tokens is the prompt (cached part included), output_tokens the candidates
  // without the thoughts, which total_tokens counts: the rest of the total is reasoning, billed as output.
  private stats(st: JsonObject | undefined): void {
    if (!st) return;
    const models = obj(st.models);
    const lines =
      models && Object.keys(models).length > 0
        ? Object.entries(models).map(([n, m]) => [n, obj(m)] as const)
        : [[this.summary.model ?? '', st] as const];
    for (const [name, m] of lines) {
      const input = num(m?.input_tokens) ?? 0,
        candidates = num(m?.output_tokens) ?? 0;
      const reasoning = Math.max(0, (num(m?.total_tokens) ?? input + candidates) - input - candidates);
      addModel(this.summary, name, { input, cached: num(m?.cached) ?? 0, output: candidates + reasoning, reasoning });
    }
  }

  private text(content: string, delta: boolean, out: ParsedLine[]): void {
    const piece = delta ? content : `${content}\n`;
    this.sinceTool += piece;
    this.pending += piece;
    const nl = this.pending.lastIndexOf('\n');
    if (nl === -1) return;
    out.push(...textLines(this.pending.slice(0, nl)));
    this.pending = this.pending.slice(nl + 1);
  }

  private flush(out: ParsedLine[]): void {
    if (this.pending.trim() !== '') out.push(...textLines(this.pending));
    this.pending = '';
  }
}
