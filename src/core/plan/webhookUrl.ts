// A `notify:` entry: a webhook URL, its secret part written `${{ env.NAME }}` so that it lives in
// the environment and never in clear in the plan file. Checked when the plan is validated (a
// literal URL carrying credentials is a warning, not a refusal: an internal hook without a secret
// is a fine literal, and a heuristic must not block it) and resolved when the run starts.

const TEMPLATE = /\$\{\{\s*([^}]*?)\s*\}\}/g;
const ENV_REF = /^env\.([A-Za-z_][A-Za-z0-9_]*)$/;

export interface UrlProblem {
  readonly severity: 'error' | 'warning';
  readonly message: string;
}

/** A path segment that reads as a secret: long, and letters mixed with digits (Slack's, Discord's tokens). */
const secretLike = (segment: string): boolean =>
  segment.length >= 16 && /[A-Za-z]/.test(segment) && /\d/.test(segment) && /^[A-Za-z0-9_-]+$/.test(segment);

/** Where a literal URL carries a credential anyone reading the plan could use; undefined when none. */
export function credentialIn(url: URL): string | undefined {
  if (url.username !== '' || url.password !== '') return 'a user name or password';
  if (url.search !== '') return 'a query string';
  if (url.pathname.split('/').some(secretLike)) return 'a token in its path';
  return undefined;
}

const SECRET_HINT = 'write its secret part as `${{ env.SLACK_WEBHOOK }}` and set SLACK_WEBHOOK in the environment';

/** What is wrong with one `notify:` entry as written. */
export function webhookProblems(value: string): UrlProblem[] {
  const out: UrlProblem[] = [];
  let templated = false;
  for (const m of value.matchAll(TEMPLATE)) {
    templated = true;
    if (!ENV_REF.test(m[1] ?? ''))
      out.push({ severity: 'error', message: `a webhook takes only \`\${{ env.NAME }}\`, got \`${m[0]}\`` });
  }
  if (templated) {
    // What it can be checked for before the environment fills it in: its scheme, when written.
    const head = value.split('${{')[0] ?? '';
    const h = head.toLowerCase();
    if (h !== '' && !/^https?:\/\//.test(h) && !'https://'.startsWith(h) && !'http://'.startsWith(h))
      out.push({ severity: 'error', message: 'a webhook must be an http(s) URL' });
    return out;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return [
      {
        severity: 'error',
        message: `expected an http(s) webhook URL or \`\${{ env.NAME }}\`, got ${JSON.stringify(value)}`,
      },
    ];
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return [{ severity: 'error', message: `a webhook must be an http(s) URL, got ${url.protocol}` }];
  const cred = credentialIn(url);
  if (cred)
    out.push({
      severity: 'warning',
      message: `this webhook URL carries ${cred} in clear in the plan file: anyone who reads the plan can post to it; ${SECRET_HINT}`,
    });
  return out;
}

/** The entry with the environment filled in, or why it cannot be used. */
export function resolveWebhook(
  value: string,
  env: Readonly<Record<string, string | undefined>>,
): { url: string } | { problem: string } {
  const missing: string[] = [];
  const text = value.replace(TEMPLATE, (_all, expr: string) => {
    const name = ENV_REF.exec(expr)?.[1];
    const v = name === undefined ? undefined : env[name];
    if (v === undefined || v === '') missing.push(name ?? expr);
    return v ?? '';
  });
  if (missing.length > 0)
    return { problem: `${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not set in the environment` };
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return { problem: 'it is not a URL once the environment is filled in' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { problem: `it must be an http(s) URL, not ${url.protocol}` };
  return { url: url.href };
}

/** A webhook as messages may show it: its scheme and host, never its path or query (where secrets are). */
export function shownWebhook(value: string): string {
  if (value.includes('${{')) return value;
  try {
    const u = new URL(value);
    return `${u.protocol}//${u.host}/…`;
  } catch {
    return 'a webhook';
  }
}
