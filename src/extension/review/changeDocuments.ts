// Read-only documents of a recorded change's sides, for the diff and merge editors:
// `braid-change:/<path>?root=…&rev=…` is `git show <rev>:<path>` in that repository.
import * as vscode from 'vscode';
import { gitBuffer } from '../../core/exec/git';

export const CHANGE_SCHEME = 'braid-change';

/** The uri of `path` as it is in commit `rev` of the repository at `root`. */
export function changeUri(root: string, rev: string, path: string): vscode.Uri {
  return vscode.Uri.from({
    scheme: CHANGE_SCHEME,
    path: `/${path}`,
    query: new URLSearchParams({ root, rev }).toString(),
  });
}

/** A label-only uri for the multi-diff editor: `<step>/<path>`, so a run's changes group by step. */
export function labelUri(stepId: string, path: string): vscode.Uri {
  return vscode.Uri.from({ scheme: CHANGE_SCHEME, path: `/${stepId}/${path}` });
}

export class ChangeDocuments implements vscode.TextDocumentContentProvider {
  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const q = new URLSearchParams(uri.query);
    const root = q.get('root');
    const rev = q.get('rev');
    if (!root || !rev || !/^[0-9a-f]{40,64}$/i.test(rev)) return '';
    const r = await gitBuffer(['show', `${rev}:${uri.path.slice(1)}`], { cwd: root });
    return r.code === 0 ? r.stdout.toString('utf8') : '';
  }
}
