// The parser for an agent's output format (AgentDef.format).
import type { AgentDef } from '../agentDef';
import { ClaudeStream } from './claude';
import { CodexStream, type ThreadUsage } from './codex';
import { GeminiStream } from './gemini';
import { TextStream } from './text';
import type { AgentStream } from './types';

/** A fresh parser for one attempt's stdout in `format`; `resumedUsage`: what a resumed session had used before (codex counts the whole thread). */
export function createAgentStream(format: AgentDef['format'], resumedUsage?: ThreadUsage): AgentStream {
  switch (format) {
    case 'claude-stream-json':
      return new ClaudeStream();
    case 'codex-json':
      return new CodexStream(resumedUsage);
    case 'gemini-json':
      return new GeminiStream();
    case 'text':
      return new TextStream();
  }
}
