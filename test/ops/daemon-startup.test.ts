// Issue 10, finding 1 and 2: a daemon that cannot do its job stops by itself, non-zero, with one
// line on stderr, and leaves nothing behind; an upload that cannot be written is answered 5xx
// instead of never. Through the real doors: the spawned binary for exit status, HTTP against a
// listening daemon for the upload. A daemon that hangs instead is killed after a bound, which
// the checks below see ("[killed by"); how fast it stops is bench/'s business, not a test's.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicTokens, bearer, send, sipForm, type BasicTokens } from '../helpers/api.js';
import {
  childEnv,
  IS_PG,
  lines,
  runRaw,
  STACK_FRAME_RE,
  useSandbox,
  withSandboxDb,
  type CliResult,
} from '../helpers/cli.js';
import { logEntries, startDaemon, type RunningDaemon } from '../helpers/daemon.js';

const box = useSandbox();

/** `archivectl serve` as a process; `config`: another configuration file than the sandbox's. */
function serve(args: string[], opts: { config?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
  return runRaw(['--config', opts.config ?? box.configFile, 'serve', ...args], {
    env: childEnv(box.env, opts.env),
    cwd: box.dir,
    timeoutMs: 15_000,
  });
}

/** Exited by itself with status 1 and exactly one line on stderr, no stack trace. */
function expectOneLineFailure(r: CliResult, line: RegExp): void {
  expect(r.stderr).not.toContain('[killed by');
  expect(r.code, r.stderr).toBe(1);
  expect(lines(r.stderr), r.stderr).toHaveLength(1);
  expect(r.stderr).toMatch(line);
  expect(r.stderr).not.toMatch(STACK_FRAME_RE);
}

async function registeredDaemons(): Promise<number> {
  return withSandboxDb(box, async (db) => Number(((await db('daemons').count({ n: '*' }).first()) as { n: string }).n));
}

describe('serve fails fast', () => {
  let first: RunningDaemon;
  beforeAll(async () => {
    first = await startDaemon(box);
  });
  afterAll(async () => {
    await first.stop();
  });

  it('a second daemon on the same port exits non-zero by itself, saying the address is in use', async () => {
    const port = new URL(first.url).port;
    const r = await serve(['--host', '127.0.0.1', '--port', port]);
    expectOneLineFailure(
      r,
      /^error: cannot listen on 127\.0\.0\.1:\d+: the address is already in use \(EADDRINUSE\)$/m,
    );
    // The journal sees it too: a JSON line at level fatal.
    const fatal = lines(r.stdout).map((l) => JSON.parse(l) as { level: string; msg: string });
    expect(fatal.some((e) => e.level === 'fatal' && e.msg === 'cannot start')).toBe(true);
    // The first daemon is untouched.
    expect((await first.fetch('/healthz')).status).toBe(200);
  });

  it.runIf(IS_PG)('a daemon that could not listen is not left registered on PostgreSQL', async () => {
    const before = await registeredDaemons();
    const r = await serve(['--host', '127.0.0.1', '--port', new URL(first.url).port]);
    expect(r.code).toBe(1);
    expect(await registeredDaemons()).toBe(before);
  });

  it('a --host that is not an address of this machine exits non-zero by itself', async () => {
    // 203.0.113.0/24 is TEST-NET-3: never assigned to a local interface.
    const r = await serve(['--host', '203.0.113.7', '--port', '0']);
    expectOneLineFailure(
      r,
      /^error: cannot listen on 203\.0\.113\.7:0: no such address on this machine \(EADDRNOTAVAIL\)$/m,
    );
  });

  it('a dataDir that cannot be written stops the start (ENOTDIR: for root too)', async () => {
    await writeFile(path.join(box.dir, 'a-file'), 'not a directory\n');
    const config = path.join(box.dir, 'bad-datadir.json');
    await writeFile(config, JSON.stringify({ database: { filename: './archive.sqlite3' }, dataDir: './a-file/data' }));
    const r = await serve(['--host', '127.0.0.1', '--port', '0'], { config });
    expectOneLineFailure(r, /^error: cannot start: dataDir \S+a-file\/data cannot be created \(ENOTDIR\)$/m);
    expect(r.stdout).not.toContain('"msg":"listening"');
  });

  it('an unreachable database stops the start with one line', async () => {
    // Port 9 (discard) on loopback: nothing listens there.
    const r = await serve(['--host', '127.0.0.1', '--port', '0'], {
      env: { DATABASE_URL: 'postgres://postgres@127.0.0.1:9/nowhere' },
    });
    expectOneLineFailure(r, /^error: cannot start: the PostgreSQL database: .*ECONNREFUSED/m);
  });
});

describe('an upload that cannot be written', () => {
  let daemon: RunningDaemon;
  let t: BasicTokens;
  const tmp = () => path.join(box.dir, 'data', 'tmp');
  beforeAll(async () => {
    t = await basicTokens(box);
    daemon = await startDaemon(box);
    expect((await send(daemon, '/api/objects', { headers: bearer(t.editor) })).status).toBe(200);
  });
  afterAll(async () => {
    await daemon.stop();
  });

  it('is answered 500 with a JSON error, and logged', async () => {
    // A regular file where the temporary upload directory belongs: no write can succeed there.
    await rm(tmp(), { recursive: true, force: true });
    await writeFile(tmp(), 'in the way\n');
    try {
      // An upload left unanswered (the failure this guards against) is abandoned after a bound.
      const r = await send(daemon, '/api/sips/import', {
        method: 'POST',
        body: sipForm({ identifier: 'SIP-unwritable' }),
        headers: bearer(t.editor),
        signal: AbortSignal.timeout(10_000),
      });
      expect(r.status).toBe(500);
      expect(r.body).toEqual({ error: 'the upload could not be stored' });
      const logged = logEntries(daemon).find((e) => e.msg === 'an upload could not be written to dataDir');
      expect(logged).toMatchObject({ level: 'error', code: 'EEXIST', request_id: r.headers.get('x-request-id') });
    } finally {
      await rm(tmp(), { force: true });
    }
    // Once the directory can be written again, uploads work.
    await mkdir(tmp(), { recursive: true });
    const ok = await send(daemon, '/api/sips/import', {
      method: 'POST',
      body: sipForm({ identifier: 'SIP-writable' }),
      headers: bearer(t.editor),
    });
    expect(ok.status, ok.text).toBe(202);
  });
});
