// What an agent is to Braid once presets and a plan's `agents:` are merged: the agents layer's own
// noun, which the plan compiler produces and everything that starts an agent reads.

/** An agent definition after presets and plan `agents:` are merged. */
export interface AgentDef {
  readonly name: string;
  /** argv template; elements may hold `${{ … }}` templates, never passed to a shell. */
  readonly command: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  readonly stdin?: 'prompt';
  readonly context: boolean;
  readonly pool?: string;
  /**
   * How the command takes its prompt: `text` (the agent CLI presets, or `input: text`): templates
   * expand to their values; otherwise (`code`, the default) the command may run it, so every
   * template stays a `${BRAID_…}` reference and the values are in its environment (promptInput.ts).
   */
  readonly input?: 'text' | 'code';
  /** How the agent's stdout is read: plain text, or a structured event stream. */
  readonly format: 'text' | 'claude-stream-json' | 'codex-json' | 'gemini-json';
}
