// The parser for an agent's output format (AgentDef.format).
import type { AgentDef } from '../../plan/types';
import { ClaudeStream } from './claude';
import { CodexStream } from './codex';
import { GeminiStream } from './gemini';
import { TextStream } from './text';
import type { AgentStream } from './types';

/** A fresh parser for one attempt's stdout in `format`. */
export function createAgentStream(format: AgentDef['format']): AgentStream {
  switch (format) {
    case 'claude-stream-json': return new ClaudeStream();
    case 'codex-json': return new CodexStream();
    case 'gemini-json': return new GeminiStream();
    case 'text': return new TextStream();
  }
}
