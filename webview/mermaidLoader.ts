// Loads mermaid's bundle (mermaidEntry.ts → out/webview/mermaid.js) the first time a graph needs
// it: a <script> beside the page's own, tagged with the page's nonce, so the panel's CSP stays as it
// is (scripts only by nonce, nothing from outside the extension's folder, no eval). A big graph
// (the ranked layout) never loads it; a small one pays its parse once, after the page said `ready`.
import type { Mermaid } from 'mermaid';

// Read while the page's script runs: document.currentScript is null once it has.
const me = document.currentScript as HTMLScriptElement | null;
const nonce = me?.nonce ?? '';
const src = me?.src ? new URL('mermaid.js', me.src).href : 'mermaid.js';

let loading: Promise<Mermaid> | undefined;

/** mermaid, once its bundle has loaded (the same promise for every caller). */
export function loadMermaid(): Promise<Mermaid> {
  loading ??= new Promise<Mermaid>((resolve, reject) => {
    const s = document.createElement('script');
    s.nonce = nonce;
    s.src = src;
    s.async = true;
    s.onload = () => {
      const m = (globalThis as { braidMermaid?: Mermaid }).braidMermaid;
      if (m) resolve(m);
      else reject(new Error(`${src} loaded but did not define mermaid`));
    };
    s.onerror = () => {
      loading = undefined; // a later graph may try again
      reject(new Error(`could not load ${src}`));
    };
    document.head.append(s);
  });
  return loading;
}
