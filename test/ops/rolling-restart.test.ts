// docs/deployment.md, "Rolling restart", run as written: two daemons (on one database) behind a
// real nginx with the documented upstream and location, and the procedure's block run by bash,
// while two clients send steady requests through nginx. Every answer must be 2xx: no 502.
// The daemons share the test database: PostgreSQL, as the procedure is written for, when
// ARCHIVE_TEST_PG_URL is set (CI's PostgreSQL leg), else one SQLite file.
// The daemons are started by the test, without socket activation (a stopped one refuses
// connections: the harder case). Substituted, and nothing else: the servers 10.0.0.11 and
// 10.0.0.12 by the loopback addresses 127.0.0.11 and 127.0.0.12, port 8080 by a free port,
// fail_timeout 10 s by 2 s (the nginx configuration and the block's FAIL_TIMEOUT), nginx's
// `listen 443 ssl http2` by a plain loopback port; `ssh root@<server> systemctl restart
// archivectl` is a shell function that asks the test to restart that daemon and returns once the
// new one listens, as systemctl's restart of a Type=notify unit does.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccounts, createSandbox, createToken, type Sandbox } from '../helpers/cli.js';
import { spawnDaemon, type SpawnedDaemon } from '../helpers/daemon.js';
import { freePort, NGINX, runNginx, type Nginx } from '../helpers/nginx.js';
import { systemTool } from '../helpers/system-tools.js';
import { codeBlocks, procedureBlock, readmeSection, substitute } from '../readme/readme-replay.js';

const CURL = systemTool('curl', 'curl');
const missing = NGINX.skip ?? CURL.skip;
const SERVERS = { '10.0.0.11': '127.0.0.11', '10.0.0.12': '127.0.0.12' };

describe.skipIf(missing !== null)(`a rolling restart behind nginx (${missing ?? 'nginx found'})`, () => {
  let box: Sandbox;
  let dir: string;
  let nginx: Nginx;
  let port: number;
  let token: string;
  const daemons = new Map<string, SpawnedDaemon>();
  const start = async (host: string) =>
    daemons.set(host, await spawnDaemon(box, { args: ['--host', host, '--port', String(port)] }));

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'archivectl-rolling-'));
    box = await createSandbox();
    await createAccounts(box, { root: 'superuser', alice: 'user' });
    token = (await createToken(box, 'alice', 'reader', 'root')).token;
    port = await freePort('127.0.0.11');
    for (const host of Object.values(SERVERS)) await start(host);
    const nginxPort = await freePort();
    const [upstream] = codeBlocks(readmeSection('Several daemons behind a load balancer (PostgreSQL)'), 'nginx');
    const site = substitute(upstream ?? '', [
      ...Object.entries(SERVERS).map(([from, to]): [string, string] => [`${from}:8080`, `${to}:${port}`]),
      ['fail_timeout=10s', 'fail_timeout=2s'],
      ['listen 443 ssl http2;', `listen 127.0.0.1:${nginxPort};`],
    ]);
    nginx = await runNginx(dir, nginxPort, [site]);
  }, 120_000);

  afterAll(async () => {
    await nginx?.stop();
    for (const d of daemons.values()) await d.stop();
    await box?.cleanup();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('the documented procedure restarts both daemons; every request through nginx meanwhile is 2xx', async () => {
    const statuses: (number | string)[] = [];
    let running = true;
    const client = async () => {
      while (running) {
        try {
          const r = await fetch(`http://127.0.0.1:${nginx.port}/api/actors`, {
            headers: { Authorization: `Bearer ${token}` },
          });
          await r.arrayBuffer();
          statuses.push(r.status);
        } catch (err) {
          statuses.push(String((err as Error).cause ?? err));
        }
      }
    };
    const clients = [client(), client()];
    const block = substitute(procedureBlock('rolling-restart'), [
      ['FAIL_TIMEOUT=10', 'FAIL_TIMEOUT=2'],
      ...Object.entries(SERVERS),
      [':8080/', `:${port}/`],
    ]);
    const prelude = [
      'ssh() {',
      '  [ "$2 $3 $4" = "systemctl restart archivectl" ] || { echo "unexpected: ssh $*" >&2; return 3; }',
      '  echo "restart ${1#root@}"',
      '  read -r answer',
      '}',
    ].join('\n');
    const bash = spawn('bash', ['-e', '-c', `${prelude}\n${block}`], { stdio: ['pipe', 'pipe', 'pipe'] });
    const restarted: string[] = [];
    let errText = '';
    bash.stderr.on('data', (c: Buffer) => (errText += c.toString('utf8')));
    let partial = '';
    let pending = Promise.resolve();
    bash.stdout.on('data', (c: Buffer) => {
      partial += c.toString('utf8');
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const host = /^restart (\S+)$/.exec(line)?.[1];
        if (!host) continue;
        pending = pending.then(async () => {
          expect(await daemons.get(host)?.stop()).toEqual({ code: 0, signal: null });
          await start(host);
          restarted.push(host);
          bash.stdin.write('done\n');
        });
      }
    });
    const code = await new Promise<number | null>((resolve) => bash.on('exit', resolve));
    await pending;
    running = false;
    await Promise.all(clients);
    const failed = statuses.filter((s) => typeof s !== 'number' || s < 200 || s > 299);
    console.info(`rolling restart: ${statuses.length} requests through nginx, ${failed.length} not 2xx`);
    expect(code, errText).toBe(0);
    expect(restarted).toEqual(Object.values(SERVERS));
    expect(statuses.length).toBeGreaterThan(50);
    const errors = await nginx.errors();
    expect(failed, errors).toEqual([]);
    expect(errors).not.toContain('no live upstreams');
  }, 120_000);
});
