// The daemon and the CLI may write at the same time (SQLite in WAL mode with a busy timeout,
// docs/configuration.md): a stream of API writes (actors, AI-cataloging usage records, small SIP imports;
// 8 in flight) runs while CLI processes create and revoke tokens and toggle settings (4 at a
// time). Nothing may fail: every write answers 2xx, every CLI run exits 0, SQLITE_BUSY appears
// nowhere, and afterwards the database holds exactly what was acknowledged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccounts, createSandbox, createToken, IS_PG, type CliResult, type Sandbox } from '../helpers/cli.js';
import { logEntries, startDaemon, type RunningDaemon } from '../helpers/daemon.js';
import { pool, stream } from '../helpers/pool.js';
import { querySqlite } from '../helpers/sqlite.js';
import { zipOf } from '../helpers/upload.js';

const API_MIN = 300; // at least this many API writes…
const API_MAX = 900; // …and more while the CLI is still running, up to this many
const API_CONCURRENCY = 8;
const CLI_CONCURRENCY = 4;

let box: Sandbox;
let daemon: RunningDaemon;
let editor = '';

beforeAll(async () => {
  box = await createSandbox();
  await createAccounts(box, { cwroot: 'superuser', cwed: 'editor', cwuser: 'user' });
  editor = (await createToken(box, 'cwed', 'concurrent writers', 'cwroot')).token;
  daemon = await startDaemon(box);
});

afterAll(async () => {
  await daemon?.stop();
  await box?.cleanup();
});

interface ApiResult {
  kind: 'actor' | 'usage' | 'sip';
  status: number;
  text: string;
}

const busy = (text: string) => /SQLITE_BUSY|database is locked/i.test(text);

describe('API and CLI writing at the same time', () => {
  it('loses nothing and fails nothing', async () => {
    const auth = { Authorization: `Bearer ${editor}` };
    const zip = zipOf({ 'manifest.txt': 'concurrent writers\n', 'data.bin': Buffer.alloc(2048, 7) });

    const apiWrite = async (i: number): Promise<ApiResult> => {
      const kind = (['actor', 'usage', 'sip'] as const)[i % 3] as ApiResult['kind'];
      let res: Response;
      try {
        if (kind === 'actor') {
          res = await daemon.fetch('/api/actors', {
            method: 'POST',
            headers: { ...auth, 'Content-Type': 'application/json' },
            body: JSON.stringify({ name: `concurrent actor ${i}`, type: 'person' }),
            signal: AbortSignal.timeout(20_000),
          });
        } else if (kind === 'usage') {
          res = await daemon.fetch('/api/ai-cataloging/usage', {
            method: 'POST',
            headers: { ...auth, 'Content-Type': 'application/json' },
            body: JSON.stringify({
              provider: 'p',
              model: 'm',
              tokens_in: i,
              tokens_out: 2 * i,
              cost_chf: 0.001 * i,
              success: i % 2 === 0,
            }),
            signal: AbortSignal.timeout(20_000),
          });
        } else {
          const form = new FormData();
          form.set('identifier', `cw-sip-${i}`);
          form.set('title', `Concurrent SIP ${i}`);
          form.set('file', new Blob([new Uint8Array(zip)], { type: 'application/zip' }), 'sip.zip');
          res = await daemon.fetch('/api/sips/import', {
            method: 'POST',
            headers: auth,
            body: form,
            signal: AbortSignal.timeout(20_000),
          });
        }
        return { kind, status: res.status, text: await res.text() };
      } catch (err) {
        return {
          kind,
          status: 0,
          text: `${(err as Error).message} ${String((err as { cause?: unknown }).cause ?? '')}`,
        };
      }
    };

    // The CLI side: 5 × (token create + token revoke) and 10 settings changes = 20 runs.
    const cliRuns: { args: string[]; r: CliResult }[] = [];
    const run = async (args: string[]) => {
      // Processes of their own: the point is several writers on the database at once.
      const r = await box.run(args, { spawn: true });
      cliRuns.push({ args, r });
      return r;
    };
    const cliTasks: (() => Promise<unknown>)[] = [];
    for (let j = 0; j < 5; j++) {
      cliTasks.push(async () => {
        const created = await run(['token', 'create', 'cwuser', '--name', `churn ${j}`, '--as', 'cwroot', '--json']);
        if (created.code !== 0) return;
        const id = (JSON.parse(created.stdout) as { id: string }).id;
        await run(['token', 'revoke', id, '--as', 'cwroot', '--json']);
      });
    }
    for (let j = 0; j < 10; j++) {
      const name = j % 2 === 0 ? 'public_api' : 'public_access';
      const value = j % 4 < 2 ? 'on' : 'off';
      cliTasks.push(() => run(['settings', 'set', name, value, '--json', '--as', 'cwroot']));
    }

    let cliDone = false;
    const started = Date.now();
    const [apiResults] = await Promise.all([
      stream(apiWrite, { limit: API_CONCURRENCY, min: API_MIN, max: API_MAX, keepGoing: () => !cliDone }),
      pool(cliTasks, CLI_CONCURRENCY).then(() => {
        cliDone = true;
      }),
    ]);
    const elapsed = Date.now() - started;

    const failedApi = apiResults.filter((r) => r.status < 200 || r.status >= 300);
    const failedCli = cliRuns.filter(({ r }) => r.code !== 0);
    const busyCli = cliRuns.filter(({ r }) => busy(r.stdout) || busy(r.stderr));
    const busyApi = apiResults.filter((r) => busy(r.text));
    const busyLogs = daemon.logs.filter(busy);
    const count = (kind: ApiResult['kind'], status: number) =>
      apiResults.filter((r) => r.kind === kind && r.status === status).length;

    console.log(
      `[concurrent-writers] ${apiResults.length} API writes (${count('actor', 201)} actors, ${count('usage', 201)} usage records, ${count('sip', 202)} SIPs acknowledged), ` +
        `${cliRuns.length} CLI runs, in ${elapsed} ms; failures: ${failedApi.length} API, ${failedCli.length} CLI; SQLITE_BUSY: ${busyCli.length + busyApi.length + busyLogs.length}`,
    );

    expect(failedApi.map((r) => `${r.kind} → ${r.status} ${r.text.slice(0, 200)}`)).toEqual([]);
    expect(
      failedCli.map(({ args, r }) => `archivectl ${args.join(' ')} → ${r.code}: ${r.stderr.slice(0, 300)}`),
    ).toEqual([]);
    expect(busyCli.length + busyApi.length + busyLogs.length).toBe(0);
    expect(cliRuns).toHaveLength(20);
    expect(apiResults.length).toBeGreaterThanOrEqual(API_MIN);
    // No unhandled error in the daemon either.
    expect(logEntries(daemon).filter((e) => e.level === 'error' || e.level === 'fatal')).toEqual([]);

    // What was acknowledged is exactly what is stored.
    const listed = await daemon.fetch('/api/actors?perPage=1', { headers: auth, signal: AbortSignal.timeout(5000) });
    expect(((await listed.json()) as { meta: { total: number } }).meta.total).toBe(count('actor', 201));
    if (!IS_PG && box.dbFile) {
      const [row] = await querySqlite<{ actors: number; usage: number; sips: number; objects: number }>(
        box.dbFile,
        `SELECT (SELECT count(*) FROM actors) AS actors, (SELECT count(*) FROM ai_cataloging_usage) AS usage,
                (SELECT count(*) FROM sip_submissions) AS sips, (SELECT count(*) FROM objects WHERE identifier LIKE 'cw-sip-%') AS objects`,
      );
      expect(row).toEqual({
        actors: count('actor', 201),
        usage: count('usage', 201),
        sips: count('sip', 202),
        objects: count('sip', 202),
      });
    }
    // The CLI's writes are all there too: 5 tokens revoked, settings as last set.
    const tokens = await box.json<{ name: string; status: string }[]>(['token', 'list', 'cwuser', '--all']);
    expect(tokens.filter((t) => t.name.startsWith('churn ') && t.status === 'revoked')).toHaveLength(5);
  });
});
