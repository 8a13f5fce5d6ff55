// The mermaid bundle (out/webview/mermaid.js), apart from the page's own (main.js): ~3.5 MB that a
// graph drawn by the ranked layout never needs, so the page parses it only when a graph asks for it
// (mermaidLoader.ts injects it). It hands mermaid to the page through one global.
import mermaid from 'mermaid';

(globalThis as { braidMermaid?: typeof mermaid }).braidMermaid = mermaid;
