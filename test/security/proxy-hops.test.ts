// `trustProxy` as a hop count trusted every direct peer as a proxy: a client that reached the
// daemon directly chose its own address with X-Forwarded-For (and with it a fresh failure
// budget, a way past the per-address connection limit, and /metrics as "local"). A hop count is
// refused like `true`, with a message naming the fix: the proxies' addresses or ranges.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { lines, STACK_FRAME_RE, useSandbox } from '../helpers/cli.js';

const box = useSandbox();
let n = 0;

async function configFile(content: object): Promise<string> {
  const dir = path.join(box.dir, `hops${++n}`);
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, 'config.json');
  await writeFile(file, JSON.stringify(content));
  return file;
}

const NAMES_THE_FIX = /"trustProxy" .*list the proxies' addresses or CIDR ranges/;

describe('trustProxy as a hop count', () => {
  it('is refused in the configuration, naming the key and what to write instead', async () => {
    for (const hops of [1, 2, 16]) {
      const file = await configFile({ trustProxy: hops });
      expect(() => loadConfig(file, {}), String(hops)).toThrow(NAMES_THE_FIX);
    }
  });

  it('stops `serve` before it listens: exit status 2, one line, no stack', async () => {
    const file = await configFile({ database: { filename: './db.sqlite3' }, trustProxy: 1 });
    const r = await box.run(['serve', '--host', '127.0.0.1', '--port', '0'], { config: file, spawn: true });
    expect(r.code, r.stderr).toBe(2);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(NAMES_THE_FIX);
    expect(r.stderr).toContain(file);
    expect(STACK_FRAME_RE.test(r.stderr)).toBe(false);
    expect(r.stdout).not.toContain('"msg":"listening"');
  });

  it('the proxies named by address or range are still accepted', async () => {
    for (const trustProxy of [['127.0.0.1'], ['10.0.0.0/8', '::1'], ['loopback'], false]) {
      const file = await configFile({ trustProxy, publicUrl: 'https://archive.example.org' });
      expect(loadConfig(file, {}).trustProxy, JSON.stringify(trustProxy)).toEqual(trustProxy);
    }
  });
});
