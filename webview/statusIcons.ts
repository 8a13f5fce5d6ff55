// One codicon per status, so a node's status reads without colour: the same shapes VS Code's own
// Testing and Problems views use. The SVGs are bundled as text and parsed once, in an inert
// document; they are ours (from @vscode/codicons), never user data.
import circleLarge from '@vscode/codicons/src/icons/circle-large.svg';
import circleSlash from '@vscode/codicons/src/icons/circle-slash.svg';
import debugDisconnect from '@vscode/codicons/src/icons/debug-disconnect.svg';
import debugStepOver from '@vscode/codicons/src/icons/debug-step-over.svg';
import error from '@vscode/codicons/src/icons/error.svg';
import eye from '@vscode/codicons/src/icons/eye.svg';
import pass from '@vscode/codicons/src/icons/pass.svg';
import sync from '@vscode/codicons/src/icons/sync.svg';
import warning from '@vscode/codicons/src/icons/warning.svg';
import watch from '@vscode/codicons/src/icons/watch.svg';

/** The icon of each status (unknown statuses get none). */
const ICONS: Readonly<Record<string, string>> = {
  pending: circleLarge,
  waiting: watch,
  running: sync,
  review: eye,
  succeeded: pass,
  failed: error,
  conflict: warning,
  canceled: circleSlash,
  skipped: debugStepOver,
  interrupted: debugDisconnect,
};

const parsed = new Map<string, SVGSVGElement>();

/** A fresh copy of the status's icon, 1em square, drawn in the current text colour. */
export function statusIcon(status: string): SVGSVGElement | undefined {
  const text = ICONS[status];
  if (text === undefined) return undefined;
  let svg = parsed.get(status);
  if (!svg) {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    const root = doc.documentElement;
    if (!(root instanceof SVGSVGElement)) return undefined;
    root.removeAttribute('width');
    root.removeAttribute('height');
    root.setAttribute('aria-hidden', 'true');
    root.setAttribute('class', 'status-icon');
    svg = root;
    parsed.set(status, svg);
  }
  return document.importNode(svg, true);
}
