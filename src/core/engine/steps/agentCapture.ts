// One agent attempt's output as it arrives: a structured stream is parsed into readable lines
// (the step log and output events get those), the raw stream is kept beside the log as JSON
// lines, stderr passes as is, and progress (session, usage, cost, last activity) is reported
// whenever it changes. Plain-text agents pass through untouched; only stderr's end is kept, for
// rate-limit detection.
import type { Writable } from 'node:stream';
import type { ThreadUsage } from '../../agents/streams/codex';
import { createAgentStream } from '../../agents/streams/createStream';
import { StderrFilter } from '../../agents/streams/stderrFilter';
import type { AgentStream, AgentSummary, ParsedLine } from '../../agents/streams/types';

export { usageOf };
import type { AgentDef } from '../../agents/agentDef';
import { usageOf, type Pricing } from '../../cost/agentCost';
import type { AgentProgress, AttemptContext, OutputStream } from '../types';

const TAIL_CHARS = 64 * 1024;

export class AgentCapture {
  private readonly parser: AgentStream | undefined;
  private stderr = '';
  private readable = '';
  private sent: AgentProgress = {};
  private rawMidLine = false;
  private readonly stderrFilter = new StderrFilter();

  /**
   * `log`: the readable step log; `raw`: the raw stream's file (structured agents only);
   * `resumedUsage`: what a resumed session had used before (createAgentStream); `pricing`: how
   * its tokens become a cost when the agent reports none (cost/agentCost.ts).
   */
  constructor(
    format: AgentDef['format'],
    private readonly log: Writable,
    private readonly raw: Writable | undefined,
    private readonly ctx: Pick<AttemptContext, 'onOutput' | 'onAgent'>,
    resumedUsage?: ThreadUsage,
    private readonly pricing?: Pricing,
  ) {
    this.parser = format === 'text' ? undefined : createAgentStream(format, resumedUsage);
  }

  get structured(): boolean {
    return this.parser !== undefined;
  }

  /** runProcess's onOutput. */
  readonly onOutput = (stream: OutputStream, text: string): void => {
    if (stream === 'stderr') {
      this.stderr = clip(this.stderr + text);
      if (!this.parser) {
        this.ctx.onOutput(stream, text);
        return;
      }
      this.stderrLines(this.stderrFilter.push(text));
      return;
    }
    if (!this.parser) {
      this.ctx.onOutput(stream, text);
      return;
    }
    this.raw?.write(text);
    if (text.length > 0) this.rawMidLine = !text.endsWith('\n');
    this.lines(this.parser.push(text));
  };

  /** The process ended: the last unterminated line, and the agent's summary (undefined for plain text). */
  end(): AgentSummary | undefined {
    if (!this.parser) return undefined;
    if (this.rawMidLine) this.raw?.write('\n'); // killed mid-line: the next attempt's header starts a line of its own
    this.rawMidLine = false;
    this.stderrLines(this.stderrFilter.end());
    this.lines(this.parser.end());
    return this.parser.summary;
  }

  /** The end of stderr, for rate-limit detection. */
  get stderrTail(): string {
    return this.stderr;
  }

  /** The end of the readable log: a structured agent's output when it gave no final answer. */
  get readableTail(): string {
    return this.readable;
  }

  // Readable stderr to the log and the output events; noise only to the raw stream, as JSON lines
  // of their own between the agent's events.
  private stderrLines(f: { kept: string; dropped: string[] }): void {
    if (f.kept !== '') {
      this.log.write(f.kept);
      this.ctx.onOutput('stderr', f.kept);
    }
    if (f.dropped.length > 0 && this.raw) {
      if (this.rawMidLine) return; // never inside an event line: the noise is dropped rather than corrupt the stream
      this.raw.write(f.dropped.map((text) => `${JSON.stringify({ braid: 'stderr', text })}\n`).join(''));
    }
  }

  private lines(lines: ParsedLine[]): void {
    const s = this.parser!.summary;
    let activity: string | undefined;
    if (lines.length > 0) {
      const text = lines.map((l) => `${l.text}\n`).join('');
      this.log.write(text);
      this.readable = clip(this.readable + text);
      this.ctx.onOutput('stdout', text);
      activity = lines.filter((l) => l.kind !== 'info' && l.kind !== 'raw').pop()?.text;
    }
    const now: AgentProgress = { ...usageOf(s, this.pricing), ...(activity !== undefined ? { activity } : {}) };
    const changed =
      activity !== undefined ||
      (Object.keys(now) as (keyof AgentProgress)[]).some((k) => k !== 'activity' && now[k] !== this.sent[k]);
    if (!changed) return;
    this.sent = { ...this.sent, ...now };
    this.ctx.onAgent?.(now);
  }
}

const clip = (s: string) => (s.length > TAIL_CHARS ? s.slice(-TAIL_CHARS) : s);
