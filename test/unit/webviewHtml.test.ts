import { strict as assert } from 'node:assert';
import { graphHtml } from '../../src/extension/graph/graphHtml';

const opts = {
  cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
  scriptUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/out/webview/main.js',
  styleUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/media/graph.css',
  nonce: 'cmFuZG9tLW5vbmNlLTEyMzQ1Ng==',
};

function csp(html: string): Map<string, string[]> {
  const m = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html);
  assert.ok(m, 'has a CSP meta tag');
  const text = (m[1] ?? '').replace(/&#39;/g, "'");
  return new Map(
    text
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...values]) => [name ?? '', values]),
  );
}

describe('webview HTML and its CSP', () => {
  const html = graphHtml(opts);
  const policy = csp(html);

  it('denies everything by default and allows scripts only by nonce, never eval or inline', () => {
    assert.deepEqual(policy.get('default-src'), ["'none'"]);
    assert.deepEqual(policy.get('script-src'), [`'nonce-${opts.nonce}'`]);
    assert.doesNotMatch(html, /unsafe-eval/);
    assert.ok(!(policy.get('script-src') ?? []).includes("'unsafe-inline'"));
  });

  it('allows styles, images and fonts from the extension only (plus inline styles mermaid writes)', () => {
    assert.deepEqual(policy.get('style-src'), [opts.cspSource, "'unsafe-inline'"]);
    assert.deepEqual(policy.get('img-src'), [opts.cspSource, 'data:']);
    assert.deepEqual(policy.get('font-src'), [opts.cspSource]);
    assert.deepEqual([...policy.keys()].sort(), ['default-src', 'font-src', 'img-src', 'script-src', 'style-src']);
  });

  it('loads exactly one script, tagged with the nonce, and the stylesheet', () => {
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    assert.deepEqual(scripts, [`<script nonce="${opts.nonce}" src="${opts.scriptUri}">`]);
    assert.ok(html.includes(`<link rel="stylesheet" href="${opts.styleUri}">`));
    assert.ok(html.includes('<div id="app"></div>'));
    assert.doesNotMatch(html, /\son\w+=/i, 'no inline event handlers');
  });

  it('escapes what it puts in attributes and refuses nonces or sources that could rewrite the policy', () => {
    assert.ok(
      graphHtml({ ...opts, title: '<script>x</script>' }).includes('<title>&lt;script&gt;x&lt;/script&gt;</title>'),
    );
    assert.ok(graphHtml({ ...opts, scriptUri: 'https://x/a"b.js' }).includes('src="https://x/a&quot;b.js"'));
    assert.throws(() => graphHtml({ ...opts, nonce: "abc'; script-src *" }), /nonce must be 16\+ base64 characters/);
    assert.throws(() => graphHtml({ ...opts, nonce: 'short' }), /nonce/);
    assert.throws(() => graphHtml({ ...opts, cspSource: "https://x; script-src 'unsafe-eval'" }), /bad cspSource/);
    assert.throws(() => graphHtml({ ...opts, cspSource: "'unsafe-eval' https://x" }), /bad cspSource/);
  });

  it("accepts the source list of a web or remote workbench ('self' plus a CDN host)", () => {
    const html = graphHtml({ ...opts, cspSource: "'self' https://*.vscode-cdn.net" });
    assert.ok(
      html.includes('style-src &#39;self&#39; https://*.vscode-cdn.net &#39;unsafe-inline&#39;'),
      html.slice(0, 400),
    );
  });
});
