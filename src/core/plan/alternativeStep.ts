// The step an alternative of a best-of step runs as, and its id (`<step>.alt<i>`): the plan's
// nouns, which the scheduler's race, the records, review and every face name alike.
import { dict } from './dict';
import type { AlternativeDef, GraphStep } from './types';

/** The step an alternative runs as: the step with the alternative's agent, model, prompt and env. */
export function alternativeStep(step: GraphStep, def: AlternativeDef): GraphStep {
  const { bestOf: _bestOf, ...rest } = step;
  return Object.freeze({
    ...rest,
    id: alternativeId(step.id, def.index),
    name: `${step.name} · alternative ${def.index}`,
    alternative: { of: step.id, index: def.index },
    env: dict({ ...step.env, ...def.env }),
    ...(def.agent !== undefined ? { agent: def.agent } : {}),
    ...(def.prompt !== undefined ? { prompt: def.prompt } : {}),
    ...(def.model !== undefined ? { model: def.model } : {}),
  });
}

export const alternativeId = (stepId: string, index: number): string => `${stepId}.alt${index}`;
