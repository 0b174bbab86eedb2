// A real nginx (Debian's package `nginx`, installed by .ci/run) run by a test: its configuration,
// pid, logs and temporary files in the test's own folder, in the foreground, stopped by the test.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { pathOf, systemTool } from './system-tools.js';
import { eventually } from './until.js';

export const NGINX = systemTool('nginx', 'nginx');

/** A free port on a loopback address (127.0.0.1 unless given). */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const server = net.createServer();
  server.listen(0, host);
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

export interface Nginx {
  port: number;
  stop(): Promise<void>;
  /** Its error log so far. */
  errors(): Promise<string>;
}

/**
 * nginx in `dir` with `http` (lines of its http block: upstreams, servers) listening on 127.0.0.1:`port`;
 * resolves once it accepts connections there.
 */
export async function runNginx(dir: string, port: number, http: string[]): Promise<Nginx> {
  const conf = [
    // As root, nginx's workers would run as nobody, who cannot write to this test's folder.
    ...(process.getuid?.() === 0 ? ['user root;'] : []),
    'worker_processes 1;',
    'daemon off;',
    `pid ${path.join(dir, 'nginx.pid')};`,
    `error_log ${path.join(dir, 'error.log')} warn;`,
    'events { worker_connections 64; }',
    'http {',
    `    access_log ${path.join(dir, 'access.log')};`,
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `    ${t}_temp_path ${path.join(dir, t)};`),
    ...http,
    '}',
    '',
  ].join('\n');
  const file = path.join(dir, 'nginx.conf');
  await writeFile(file, conf);
  const nginx = pathOf(NGINX, 'nginx');
  execFileSync(nginx, ['-t', '-q', '-p', dir, '-e', path.join(dir, 'error.log'), '-c', file], { stdio: 'pipe' });
  const child: ChildProcess = spawn(nginx, ['-p', dir, '-e', path.join(dir, 'error.log'), '-c', file], {
    stdio: 'ignore',
  });
  const exited = once(child, 'exit');
  await eventually(
    () =>
      new Promise<boolean>((resolve) => {
        const s = net.connect({ host: '127.0.0.1', port }, () => {
          s.destroy();
          resolve(true);
        });
        s.on('error', () => resolve(false));
      }),
    `nginx listening on 127.0.0.1:${port}`,
  );
  return {
    port,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
    errors: () => readFile(path.join(dir, 'error.log'), 'utf8').catch(() => ''),
  };
}
