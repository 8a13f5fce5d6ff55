// A webhook receiver on 127.0.0.1 for tests: keeps each POST's path and JSON body, answers `status`.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  readonly path: string;
  readonly contentType: string;
  readonly body: { text: string; braid: Record<string, string> };
}

export interface WebhookReceiver {
  /** A URL of this receiver (its path is a secret-looking token, as a real hook's is). */
  readonly url: string;
  readonly deliveries: Delivery[];
  /** Resolves with the first delivery that passes `test`, whenever it comes. */
  when(test: (d: Delivery) => boolean): Promise<Delivery>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(status = 200): Promise<WebhookReceiver> {
  const deliveries: Delivery[] = [];
  const waiters: (() => void)[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      deliveries.push({
        path: req.url ?? '',
        contentType: req.headers['content-type'] ?? '',
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Delivery['body'],
      });
      for (const w of waiters.splice(0)) w();
      res.writeHead(status).end(status === 200 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/services/T0AAAA/B0BBBB/secretToken1234abcd`,
    deliveries,
    async when(test) {
      for (;;) {
        const d = deliveries.find(test);
        if (d) return d;
        await new Promise<void>((w) => waiters.push(w));
      }
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
