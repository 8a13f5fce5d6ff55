// `notify:` webhooks: checked as written (secrets belong in the environment), resolved at the run's
// start, and shown without their secret part.
import { strict as assert } from 'node:assert';
import { compilePlan } from '../../src/core/plan/compile';
import { resolveWebhook, shownWebhook, webhookProblems } from '../../src/core/plan/webhookUrl';
import { plan } from '../helpers/planText';

const SLACK = 'https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/abcdEFGH1234ijklMNOP5678';

describe('notify webhooks', () => {
  it('a literal URL with a token-like path, credentials or a query is a warning that shows the env form', () => {
    for (const url of [SLACK, 'https://user:pass@hooks.example/x', 'https://hooks.example/hook?token=abc']) {
      const p = webhookProblems(url);
      assert.equal(p.length, 1, url);
      assert.equal(p[0]!.severity, 'warning');
      assert.match(p[0]!.message, /in clear in the plan file.*\$\{\{ env\.SLACK_WEBHOOK \}\}/);
    }
  });

  it('the env form, and a literal URL without a secret, are fine', () => {
    assert.deepEqual(webhookProblems('${{ env.SLACK_WEBHOOK }}'), []);
    assert.deepEqual(webhookProblems('https://hooks.slack.com/services/${{ env.SLACK_PATH }}'), []);
    assert.deepEqual(webhookProblems('http://127.0.0.1:9000/braid'), []);
  });

  it('anything but env in a template, another scheme, or not a URL is an error', () => {
    assert.match(webhookProblems('${{ steps.a.output }}')[0]!.message, /takes only `\$\{\{ env\.NAME \}\}`/);
    assert.equal(webhookProblems('ftp://x/y')[0]!.severity, 'error');
    assert.equal(webhookProblems('ftp://${{ env.X }}')[0]!.severity, 'error');
    assert.equal(webhookProblems('hooks.slack.com')[0]!.severity, 'error');
  });

  it('validation reports them where they are written', () => {
    const text = plan`
      version: 1
      notify:
        - ${SLACK}
        - \${{ env.HOOK }}
      steps:
        a:
          run: echo
      `;
    const r = compilePlan('/w/p.braid.yaml', text);
    assert.ok(r.graph, JSON.stringify(r.diagnostics));
    assert.deepEqual(r.graph.plan.notify, [SLACK, '${{ env.HOOK }}']);
    const d = r.diagnostics.filter((x) => x.code === 'notify');
    assert.equal(d.length, 1);
    assert.equal(d[0]!.severity, 'warning');
    assert.equal(d[0]!.range.start.line, 2);
    assert.match(d[0]!.message, /^notify\[0\]: /);
    // One URL, not a list, is a list of one.
    assert.deepEqual(
      compilePlan('/w/p.braid.yaml', 'version: 1\nnotify: http://127.0.0.1:1/x\nsteps:\n  a:\n    run: echo\n').graph
        ?.plan.notify,
      ['http://127.0.0.1:1/x'],
    );
  });

  it('resolves from the environment; an unset name says which', () => {
    assert.deepEqual(resolveWebhook('${{ env.HOOK }}', { HOOK: 'https://h.example/a/b' }), {
      url: 'https://h.example/a/b',
    });
    assert.deepEqual(resolveWebhook('https://h.example/${{ env.P }}', { P: 'x/y' }), { url: 'https://h.example/x/y' });
    assert.deepEqual(resolveWebhook('${{ env.HOOK }}', {}), { problem: 'HOOK is not set in the environment' });
    assert.match(
      (resolveWebhook('${{ env.HOOK }}', { HOOK: 'javascript:alert(1)' }) as { problem: string }).problem,
      /http\(s\)/,
    );
  });

  it('is shown by its host, or as written when its secret comes from the environment', () => {
    assert.equal(shownWebhook(SLACK), 'https://hooks.slack.com/…');
    assert.equal(shownWebhook('${{ env.SLACK_WEBHOOK }}'), '${{ env.SLACK_WEBHOOK }}');
  });
});
