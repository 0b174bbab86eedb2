// A TCP proxy of the test's own between daemons and PostgreSQL, which the test can cut (every
// connection destroyed, new ones refused) or stall (bytes held back in both directions) and
// restore. The shared server on 127.0.0.1:5432 is never touched: other test files use it.
import net from 'node:net';

export interface FaultProxy {
  readonly port: number;
  /** `url` with its host and port replaced by the proxy's. */
  through(url: string): string;
  /** Destroys every connection and refuses new ones until restore(). */
  cut(): void;
  /** Holds back every byte, on open connections and new ones, until restore(). */
  stall(): void;
  restore(): void;
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  server: net.Socket | null;
}

export async function startFaultProxy(target: { host: string; port: number }): Promise<FaultProxy> {
  let mode: 'open' | 'cut' | 'stalled' = 'open';
  const pairs = new Set<Pair>();
  const held: Pair[] = []; // accepted while stalled: connected upstream on restore

  const connectUpstream = (pair: Pair) => {
    const server = net.connect(target);
    pair.server = server;
    const drop = () => {
      pair.client.destroy();
      server.destroy();
      pairs.delete(pair);
    };
    server.on('error', drop);
    server.on('close', drop);
    pair.client.on('close', drop);
    pair.client.pipe(server);
    server.pipe(pair.client);
  };

  const proxy = net.createServer((client) => {
    client.on('error', () => client.destroy());
    if (mode === 'cut') {
      client.destroy();
      return;
    }
    const pair: Pair = { client, server: null };
    pairs.add(pair);
    if (mode === 'stalled') {
      client.pause();
      held.push(pair);
      client.on('close', () => pairs.delete(pair));
      return;
    }
    connectUpstream(pair);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as net.AddressInfo;

  const setPaused = (paused: boolean) => {
    for (const { client, server } of pairs) {
      for (const socket of [client, server]) {
        if (!socket) continue;
        if (paused) socket.pause();
        else socket.resume();
      }
    }
  };

  return {
    port,
    through(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    cut() {
      mode = 'cut';
      for (const { client, server } of pairs) {
        client.destroy();
        server?.destroy();
      }
      pairs.clear();
      held.length = 0;
    },
    stall() {
      mode = 'stalled';
      // pipe() resumes a paused source when its destination drains: unpipe while stalled.
      for (const { client, server } of pairs) {
        if (server) {
          client.unpipe(server);
          server.unpipe(client);
        }
      }
      setPaused(true);
    },
    restore() {
      const wasStalled = mode === 'stalled';
      mode = 'open';
      if (!wasStalled) return;
      for (const { client, server } of pairs) {
        if (server) {
          client.pipe(server);
          server.pipe(client);
        }
      }
      setPaused(false);
      for (const pair of held.splice(0)) if (!pair.client.destroyed) connectUpstream(pair);
    },
    async close() {
      mode = 'cut';
      for (const { client, server } of pairs) {
        client.destroy();
        server?.destroy();
      }
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}
