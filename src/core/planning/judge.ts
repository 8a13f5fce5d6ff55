// A judge agent picks one of the valid drafts: it is given the goal and each draft's YAML, and
// must end its answer with `PICK: N` and `REASON: …`. Its answer is data, parsed strictly: a reply
// without exactly one usable pick is an error the caller shows (and then asks the user instead).
// The judge reads only; its words are printed, never run.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { AgentDef } from '../agents/agentDef';
import type { ProcessResult, SpawnSpec } from '../exec/process';
import type { ParsedLine } from '../agents/streams/types';
import { findExecutable, notInstalledMessage } from '../agents/which';
import type { DraftShape } from './compareDrafts';
import { choosePlanningAgent, type PlanningAgentSpec } from './planningAgent';
import { runPlanningAgent } from './planningRun';

/** The most of one draft's YAML the judge is shown. */
const MAX_YAML = 64 * 1024;
/** The longest reason kept. */
const MAX_REASON = 1000;

export interface JudgedDraft {
  readonly index: number;
  readonly agent: string;
  readonly yaml: string;
  readonly shape: DraftShape;
}

function fenceFor(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(longest + 1);
}

/** The judge's prompt: the goal, each draft's numbers and YAML, and the exact answer format. */
export function judgePrompt(goal: string, drafts: readonly JudgedDraft[]): string {
  const numbers = drafts.map((d) => d.index).join(', ');
  const parts = [
    'You are judging drafts of a Braid plan file: each is a DAG of agent and shell steps that Braid runs in parallel, written by a different planner for the same goal.',
    'Pick the draft that best reaches the goal: concrete steps (real paths, real commands), needs that order the work correctly, as much safe parallelism as the work allows, nothing missing and nothing needless. You may read the repository. Do not change any file.',
    '',
    '## Goal',
    goal.trim(),
  ];
  for (const d of drafts) {
    const cut =
      d.yaml.length > MAX_YAML
        ? `${d.yaml.slice(0, MAX_YAML)}\n# … (cut: the draft is ${d.yaml.length} characters)`
        : d.yaml;
    const fence = fenceFor(cut);
    parts.push(
      '',
      `## Draft ${d.index} (by ${d.agent}: ${d.shape.steps} steps, critical path ${d.shape.criticalPath}, parallel ≈ ${d.shape.parallelism.toFixed(1)})`,
      `${fence}yaml`,
      cut.trimEnd(),
      fence,
    );
  }
  parts.push(
    '',
    '## Your answer',
    'End your answer with exactly these two lines, and write no other line that starts with PICK:',
    `PICK: <the number of the draft you pick: one of ${numbers}>`,
    'REASON: <one or two sentences: why this draft over the others>',
  );
  return parts.join('\n') + '\n';
}

export type Verdict = { readonly pick: number; readonly reason: string } | { readonly error: string };

// Terminal control characters in a reason would reach the user's terminal as escapes.
const clean = (s: string): string => s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '').trim();

/** The pick and reason in a judge's answer; `allowed` are the numbers of the valid drafts. */
export function parseVerdict(answer: string, allowed: readonly number[]): Verdict {
  const lines = answer.split(/\r?\n/).map((l) => l.trim());
  const pickAt = lines.flatMap((l, i) => (/^PICK:/i.test(l) ? [i] : []));
  const choices = allowed.join(', ');
  if (pickAt.length === 0) return { error: `the judge's answer has no \`PICK: N\` line (N one of ${choices})` };
  if (pickAt.length > 1)
    return { error: `the judge's answer has ${pickAt.length} PICK lines; it must have exactly one` };
  const at = pickAt[0]!;
  const value = lines[at]!.replace(/^PICK:/i, '').trim();
  if (!/^\d{1,3}$/.test(value))
    return {
      error: `the judge's PICK must be a draft number (one of ${choices}), got ${JSON.stringify(clean(value).slice(0, 80))}`,
    };
  const pick = Number(value);
  if (!allowed.includes(pick))
    return { error: `the judge picked draft ${pick}, which is not one of the valid drafts (${choices})` };
  const reasonAt = lines.findIndex((l, i) => i > at && /^REASON:/i.test(l));
  const reason =
    reasonAt < 0
      ? ''
      : clean([lines[reasonAt]!.replace(/^REASON:/i, ''), ...lines.slice(reasonAt + 1)].join(' ').replace(/\s+/g, ' '));
  if (reason === '') return { error: "the judge's answer has no `REASON: …` after its PICK line" };
  return { pick, reason: reason.length > MAX_REASON ? `${reason.slice(0, MAX_REASON)}…` : reason };
}

/** The judge's agent definition, read-only for presets, or why it cannot judge (unknown, refused, not installed). */
export function judgeAgent(
  spec: PlanningAgentSpec,
  o: { readonly cwd: string; readonly envPath?: string | undefined; readonly lookUp?: boolean },
): { agent: AgentDef } | { error: string } {
  const choice = choosePlanningAgent(spec, { cwd: o.cwd, permission: 'read-only', envPath: o.envPath });
  if ('error' in choice) return { error: `judge: ${choice.error}` };
  const exe = choice.agent.command[0]!;
  if (o.lookUp !== false && !findExecutable(exe, o.envPath, o.cwd))
    return { error: `judge: ${notInstalledMessage(exe)}` };
  return choice;
}

export interface JudgeOptions {
  readonly goal: string;
  readonly workspace: string;
  readonly agent: PlanningAgentSpec;
  /** The valid drafts: their numbers, agents, files and shapes. */
  readonly drafts: readonly {
    readonly index: number;
    readonly agent: string;
    readonly file: string;
    readonly shape: DraftShape;
  }[];
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly runAgent?: (spec: SpawnSpec) => Promise<ProcessResult>;
  readonly onLine?: (line: ParsedLine) => void;
}

export type Judgement =
  | {
      readonly ok: true;
      readonly agent: string;
      readonly pick: number;
      readonly reason: string;
      readonly prompt: string;
    }
  | {
      readonly ok: false;
      readonly agent?: string;
      readonly error: string;
      readonly prompt?: string;
      readonly answer?: string;
    };

/** Runs the judge on the valid drafts; its failures (refused, not installed, failed, a bad answer) are data. */
export async function judgeDrafts(o: JudgeOptions): Promise<Judgement> {
  if (o.drafts.length === 0) throw new TypeError('judgeDrafts: no drafts to judge');
  const workspace = resolve(o.workspace);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(o.env ?? process.env)) if (v !== undefined) env[k] = v;
  const choice = judgeAgent(o.agent, { cwd: workspace, envPath: env.PATH, lookUp: !o.runAgent });
  if ('error' in choice) return { ok: false, error: choice.error };
  const agent = choice.agent;
  const judged: JudgedDraft[] = [];
  for (const d of o.drafts)
    judged.push({ index: d.index, agent: d.agent, shape: d.shape, yaml: await readFile(d.file, 'utf8') });
  const prompt = judgePrompt(o.goal, judged);
  const run = await runPlanningAgent({
    agent,
    prompt,
    workspace,
    env,
    ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.runAgent ? { runAgent: o.runAgent } : {}),
    ...(o.onLine ? { onLine: o.onLine } : {}),
  });
  const r = run.result;
  if (r.reason === 'canceled') return { ok: false, agent: agent.name, error: 'judging canceled', prompt };
  if (r.reason !== 'exit' || r.exitCode !== 0) {
    const how = r.reason === 'exit' ? `exited with code ${r.exitCode}` : (r.message ?? r.reason);
    const detail = run.summary.errors.at(-1) ?? run.stderr.trim().split('\n').at(-1)?.trim();
    return {
      ok: false,
      agent: agent.name,
      error: `judge ${agent.name} ${how}${detail ? `: ${clean(detail)}` : ''}`,
      prompt,
      answer: run.answer,
    };
  }
  const verdict = parseVerdict(
    run.answer,
    o.drafts.map((d) => d.index),
  );
  if ('error' in verdict) return { ok: false, agent: agent.name, error: verdict.error, prompt, answer: run.answer };
  return { ok: true, agent: agent.name, pick: verdict.pick, reason: verdict.reason, prompt };
}
