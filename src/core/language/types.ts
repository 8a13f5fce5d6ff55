// The language service's answers, as plain data with 0-based positions (the extension converts
// them to VS Code's types). Nothing here knows an editor.
import type { Position, Range } from '../plan/types';

export type { Position, Range };

export type CompletionKind = 'key' | 'value' | 'step' | 'agent' | 'pool' | 'template' | 'glob';

export interface CompletionItem {
  readonly label: string;
  readonly kind: CompletionKind;
  /** One line beside the label (a key's type, a step's kind). */
  readonly detail?: string;
  /** Markdown shown for the selected item (a key's docs). */
  readonly documentation?: string;
  /** What is inserted in place of `range`; default the label. */
  readonly insertText?: string;
  /** The text the item replaces: the word being typed. */
  readonly range: Range;
  readonly sortText?: string;
  /** Ask for completion again once inserted (`steps.` then the id, then `output`). */
  readonly retrigger?: boolean;
}

export interface Hover {
  /** Markdown. */
  readonly contents: string;
  readonly range: Range;
}

export interface TextEdit {
  readonly range: Range;
  readonly newText: string;
}

export interface Location {
  readonly range: Range;
}

export interface DocumentSymbol {
  readonly name: string;
  /** `agent claude` or `run`. */
  readonly detail: string;
  readonly kind: 'agent' | 'run';
  /** The whole step, its key to its last line. */
  readonly range: Range;
  /** The step's key. */
  readonly selectionRange: Range;
}

export interface CodeAction {
  readonly title: string;
  /** The index of the diagnostic (in the list given) that this fixes. */
  readonly diagnostic: number;
  readonly edits: readonly TextEdit[];
  readonly preferred: boolean;
}

/** The last run of a step, as the caller knows it (the extension's runs model). */
export interface StepRunInfo {
  readonly status: string;
  readonly durationMs?: number;
  readonly runId?: string;
}

/** What the caller knows beyond the text: settings' agents, run results, key docs. */
export interface ServiceContext {
  /** Agent names from the user's settings, beside the presets and the plan's own `agents:`. */
  readonly agents?: readonly string[];
  /** The last run's result of a concrete step id, if any. */
  readonly lastRun?: (stepId: string) => StepRunInfo | undefined;
  /**
   * True where a JSON-schema service already completes and describes keys and enum values (JSON
   * plans; YAML with Red Hat's extension): then only what the schema cannot know is offered.
   */
  readonly schemaServed?: boolean;
}
