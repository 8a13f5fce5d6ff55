// One suite's workbench: a disposable fixture workspace prepared by the suite, code-server and
// Chromium opened on it before the suite's tests, a screenshot and console tail of each failed test,
// and everything closed and removed after. Every e2e file wrote these hooks itself before.
import { endEngines } from '../../helpers/processes';
import { makeFixtureWorkspace, type FixtureWorkspace } from '../fixtureWorkspace';
import { openWorkbench, reportFailure, type OpenWorkbenchOptions, type Workbench } from './workbench';

export interface WorkbenchSuiteOptions extends Omit<OpenWorkbenchOptions, 'workspace'> {
  /** Writes the suite's plans into the fresh workspace before the workbench opens on it. */
  readonly prepare?: (dir: string) => void;
  /** Screenshots of failed tests are named after this. */
  readonly name: string;
}

/** Registers the suite's before/afterEach/after hooks; `opened` receives the workbench and its workspace. */
export function useWorkbench(
  options: WorkbenchSuiteOptions,
  opened: (wb: Workbench, ws: FixtureWorkspace) => void,
): void {
  const { prepare, name, ...open } = options;
  let ws: FixtureWorkspace | undefined;
  let wb: Workbench | undefined;
  before(async function () {
    this.timeout(120_000);
    ws = makeFixtureWorkspace();
    prepare?.(ws.path);
    wb = await openWorkbench({ ...open, workspace: ws.path });
    opened(wb, ws);
  });
  afterEach(async function () {
    await reportFailure(wb, this.currentTest, name);
  });
  after(async function () {
    this.timeout(30_000);
    await wb?.close();
    // The window's engine lives on for its idle minute, writing its log into the workspace.
    if (ws) await endEngines(ws.path);
    ws?.remove();
  });
}
