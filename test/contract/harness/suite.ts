// The set-up every contract file shares: the pinned CLIs installed, a loopback model server and a
// private agent home for the file's tests, both gone after them.
//
//   let server: ModelServer; let home: AgentHome;
//   withModelAndHome({ scenario: scenarios.answer('Done.') }, (s, h) => { server = s; home = h; });
import { agentHome, type AgentHome } from './agentHome';
import { ensureAgents } from './ensureAgents';
import { startModelServer, type ModelServer } from '../modelServer/server';

export function withModelAndHome(
  options: Parameters<typeof startModelServer>[0],
  use: (server: ModelServer, home: AgentHome) => void,
): void {
  let server: ModelServer | undefined;
  let home: AgentHome | undefined;
  before(async function () {
    this.timeout(15 * 60_000); // the first run installs the CLIs (scripts/setup-agents.sh)
    ensureAgents();
    server = await startModelServer(options);
    home = await agentHome(server.url);
    use(server, home);
  });
  after(async () => {
    await server?.close();
    await home?.dispose();
  });
}
