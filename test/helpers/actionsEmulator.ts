// Runs an exported workflow on this machine, as GitHub would, far enough to check what Braid's
// scripts do: jobs in order with their needs and `if`, matrix instances, artifacts kept in a
// folder, checkouts as clones of a local origin (which the last job pushes to). Only the
// expressions and actions Braid emits are known; any other fails the test.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import picomatch from 'picomatch';
import { parse } from 'yaml';

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
  'working-directory'?: string;
}
interface Job {
  needs?: string[];
  if?: string;
  'continue-on-error'?: boolean;
  env?: Record<string, string>;
  strategy?: { matrix: { include: Record<string, string>[] } };
  steps: Step[];
}
interface Workflow {
  env?: Record<string, string>;
  jobs: Record<string, Job>;
}

export type JobResult = 'success' | 'failure' | 'skipped';

export interface EmulatedRun {
  readonly results: Record<string, JobResult>;
  /** Artifact name → its folder. */
  readonly artifacts: string;
  /** Job (instance) → its combined output. */
  readonly logs: Record<string, string>;
}

export interface EmulatorOptions {
  /** A bare repository the checkouts clone and the last job pushes to. */
  readonly origin: string;
  /** Prepended to PATH (fake agent CLIs). */
  readonly path?: string;
  readonly runId?: string;
}

const ESCAPE = "${{ '${{' }}";

function evaluate(text: string, ctx: Record<string, string>): string {
  let out = '';
  let at = 0;
  for (;;) {
    const open = text.indexOf('${{', at);
    if (open < 0) return out + text.slice(at);
    out += text.slice(at, open);
    if (text.startsWith(ESCAPE, open)) {
      out += '${{';
      at = open + ESCAPE.length;
      continue;
    }
    const close = text.indexOf('}}', open);
    const expr = text.slice(open + 3, close).trim();
    const value = ctx[expr];
    if (value === undefined) throw new Error(`emulator: unknown expression ${expr}`);
    out += value;
    at = close + 2;
  }
}

const evalEnv = (env: Record<string, string> | undefined, ctx: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(env ?? {}).map(([k, v]: [string, unknown]) => [k, evaluate(String(v), ctx)]));

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

/** A bare origin with one commit (a README and an empty `docs/`), for `emulate`'s checkouts. */
export function bareOrigin(): string {
  const dir = mkdtempSync(join(tmpdir(), 'braid-origin-'));
  const src = join(dir, 'src');
  mkdirSync(join(src, 'docs'), { recursive: true });
  git(src, 'init', '-q', '-b', 'main');
  writeFileSync(join(src, 'README.md'), '# repo\n');
  writeFileSync(join(src, 'docs', '.keep'), '');
  git(src, 'add', '-A');
  git(src, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init');
  git(dir, 'clone', '-q', '--bare', src, 'origin.git');
  return join(dir, 'origin.git');
}

/** Runs `yaml` against `o.origin`; returns each job's result. */
export function emulate(yaml: string, o: EmulatorOptions): EmulatedRun {
  const wf = parse(yaml) as Workflow;
  const root = mkdtempSync(join(tmpdir(), 'braid-gha-'));
  const artifacts = join(root, 'artifacts');
  mkdirSync(artifacts);
  const sha = git(o.origin, 'rev-parse', 'HEAD');
  const results: Record<string, JobResult> = {};
  const logs: Record<string, string> = {};
  const failedAncestor = (job: string): boolean =>
    (wf.jobs[job]!.needs ?? []).some((n) => results[n] === 'failure' || failedAncestor(n));
  for (const [id, job] of Object.entries(wf.jobs)) {
    const needs = job.needs ?? [];
    const cond = job.if ?? 'success()';
    const ok = needs.every((n) => results[n] === 'success');
    const run =
      cond === 'always()' || cond === '!cancelled()'
        ? true
        : cond === 'failure()'
          ? failedAncestor(id)
          : cond === 'success()'
            ? ok
            : undefined;
    if (run === undefined) throw new Error(`emulator: unknown if ${cond}`);
    if (!run) {
      results[id] = 'skipped';
      continue;
    }
    const instances = job.strategy?.matrix.include ?? [{}];
    let failed = false;
    instances.forEach((entry, n) => {
      const name = instances.length > 1 ? `${id}#${n}` : id;
      const temp = join(root, name, 'temp');
      const ws = join(root, name, 'ws');
      mkdirSync(temp, { recursive: true });
      const ctx: Record<string, string> = {
        'github.run_id': o.runId ?? '1',
        'runner.temp': temp,
        ...Object.fromEntries(
          // YAML gives numbers and booleans too, whatever the workflow type says.
          Object.entries(entry).map(([k, v]: [string, unknown]) => [`matrix.${k}`, evaluate(String(v), {})]),
        ),
      };
      for (const s of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY']) ctx[`secrets.${s}`] = 'test-secret';
      const baseEnv = { ...evalEnv(wf.env, ctx), ...evalEnv(job.env, ctx) };
      let log = '';
      let stepFailed = false;
      for (const step of job.steps) {
        if (stepFailed && step.if !== 'always()') continue;
        const w = Object.fromEntries(
          Object.entries(step.with ?? {}).map(([k, v]: [string, unknown]) => [k, evaluate(String(v), ctx)]),
        );
        if (step.uses?.startsWith('actions/checkout@')) {
          spawnSync('git', ['clone', '-q', o.origin, ws]);
          continue;
        }
        if (step.uses?.startsWith('actions/download-artifact@')) {
          const isMatch = picomatch(w.pattern!);
          for (const a of readdirSync(artifacts))
            if (isMatch(a)) cpSync(join(artifacts, a), join(w.path!, a), { recursive: true });
          continue;
        }
        if (step.uses?.startsWith('actions/upload-artifact@')) {
          if (!existsSync(w.path!)) {
            stepFailed = true;
            continue;
          }
          cpSync(w.path!, join(artifacts, w.name!), { recursive: true });
          continue;
        }
        if (step.uses !== undefined) continue; // toolchains: this machine has them
        if (step.name?.startsWith('Install ')) continue; // agent CLIs: faked on PATH
        const script = join(temp, `step-${Math.random().toString(36).slice(2)}.sh`);
        writeFileSync(script, step.run!);
        const env = {
          ...process.env,
          ...baseEnv,
          ...evalEnv(step.env, ctx),
          RUNNER_TEMP: temp,
          GITHUB_WORKSPACE: ws,
          GITHUB_SHA: sha,
          GITHUB_RUN_ID: o.runId ?? '1',
          GITHUB_STEP_SUMMARY: join(temp, 'summary.md'),
          GITHUB_SERVER_URL: 'https://github.com',
          GITHUB_REPOSITORY: 'o/r',
          PATH: `${o.path ? `${o.path}:` : ''}${process.env.PATH}`,
        };
        const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
          cwd: join(ws, step['working-directory'] ? evaluate(step['working-directory'], ctx) : '.'),
          env,
          encoding: 'utf8',
        });
        log += `── ${step.name ?? 'run'} (exit ${r.status})\n${r.stdout}${r.stderr}`;
        if (r.status !== 0) stepFailed = true;
      }
      logs[name] = log;
      if (stepFailed) failed = true;
    });
    results[id] = failed && !job['continue-on-error'] ? 'failure' : 'success';
  }
  return { results, artifacts, logs };
}
