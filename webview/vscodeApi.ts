// The webview API VS Code injects, typed; outside VS Code (a browser harness, the bench) a
// stand-in posts to the parent window and keeps state in memory, so the page runs unchanged.

export interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare global {
  // Present only inside a VS Code webview; callable once per page.
  var acquireVsCodeApi: (() => VsCodeApi) | undefined;
}

export function vscodeApi(): VsCodeApi {
  if (typeof globalThis.acquireVsCodeApi === 'function') return globalThis.acquireVsCodeApi();
  let state: unknown;
  return {
    postMessage: (message) => {
      window.dispatchEvent(new CustomEvent('braid-webview-post', { detail: message }));
      if (window.parent !== window) window.parent.postMessage(message, '*');
    },
    getState: () => state,
    setState: (s) => {
      state = s;
    },
  };
}
