// The graph panel's HTML. Pure (strings in, string out) so its Content Security Policy is unit-tested:
// nothing loads but our own bundles and stylesheet, scripts only by nonce, no eval (the page adds
// mermaid's bundle, beside its own, by the same nonce: webview/mermaidLoader.ts).

export interface GraphHtmlOptions {
  /** `webview.cspSource`: the origin the webview serves local resources from. */
  readonly cspSource: string;
  /** `webview.asWebviewUri(out/webview/main.js)`. */
  readonly scriptUri: string;
  /** `webview.asWebviewUri(media/graph.css)`. */
  readonly styleUri: string;
  /** Fresh per page load, e.g. `randomBytes(16).toString('base64')`. */
  readonly nonce: string;
  readonly title?: string;
}

const escapeAttr = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/'/g, '&#39;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The panel's page: one stylesheet, one nonce-tagged script, an empty root the script fills. */
export function graphHtml(opts: GraphHtmlOptions): string {
  // A nonce or source with a quote or semicolon would rewrite the policy: that is a caller bug.
  if (!/^[A-Za-z0-9+/=_-]{16,}$/.test(opts.nonce))
    throw new Error(`graphHtml: nonce must be 16+ base64 characters, got ${JSON.stringify(opts.nonce)}`);
  // In a web or remote workbench cspSource is a list, e.g. `'self' https://*.vscode-cdn.net`:
  // each token must be a plain source or the 'self' keyword, never a directive separator.
  if (!opts.cspSource.split(' ').every((t) => t === "'self'" || /^[^\s;,'"]+$/.test(t)))
    throw new Error(`graphHtml: bad cspSource ${JSON.stringify(opts.cspSource)}`);
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${opts.nonce}'`,
    // mermaid writes a <style> into each SVG and style attributes on its shapes.
    `style-src ${opts.cspSource} 'unsafe-inline'`,
    `img-src ${opts.cspSource} data:`,
    `font-src ${opts.cspSource}`,
  ].join('; ');
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="UTF-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeAttr(csp)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1.0">',
    `<link rel="stylesheet" href="${escapeAttr(opts.styleUri)}">`,
    `<title>${escapeAttr(opts.title ?? 'Braid graph')}</title>`,
    '</head>',
    '<body>',
    '<div id="app"></div>',
    `<script nonce="${escapeAttr(opts.nonce)}" src="${escapeAttr(opts.scriptUri)}"></script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
