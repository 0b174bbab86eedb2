// Issue 10, finding 3: /metrics in the Prometheus text format (exposition format 0.0.4), read
// with a strict parser of the test's own, and counters that move with the requests sent. The
// duration histogram is checked bucket by bucket on a daemon whose requests are timed by a
// stopwatch the test moves: each request lasts exactly as long as the test says.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startDaemon as startServer, type Daemon } from '../../src/http/server.js';
import { basicTokens, bearer, send, type BasicTokens } from '../helpers/api.js';
import { createAccounts, createSandbox, createToken, type Sandbox } from '../helpers/cli.js';
import { patchConfig } from '../helpers/config.js';
import { startDaemon, useDaemon, type RunningDaemon } from '../helpers/daemon.js';
import { eventually } from '../helpers/until.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = `([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\\\\n]|\\\\[\\\\"n])*)"`;
const SAMPLE = new RegExp(`^(${NAME})(?:\\{((?:${LABEL},?)*)\\})? (\\S+)(?: -?\\d+)?$`);
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

/** Parses the text format strictly: every line a comment, HELP, TYPE or sample of a declared family. */
function parsePrometheus(text: string): Sample[] {
  expect(text.endsWith('\n')).toBe(true);
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n').slice(0, -1)) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (meta) {
      expect(meta[2], line).toMatch(new RegExp(`^${NAME}$`));
      if (meta[1] === 'TYPE') {
        expect(TYPES.has(meta[3] as string), line).toBe(true);
        expect(types.has(meta[2] as string), `TYPE twice: ${line}`).toBe(false);
        types.set(meta[2] as string, meta[3] as string);
      }
      continue;
    }
    expect(line.startsWith('#') ? 'comment' : 'sample', line).toBe('sample');
    const m = SAMPLE.exec(line);
    expect(m, `not a sample line: ${line}`).not.toBeNull();
    const [, name, labelText = '', , , raw] = m as RegExpExecArray;
    // Go's ParseFloat, which Prometheus uses, takes NaN and Inf in any case (prom-client writes "Nan").
    const special: Record<string, number> = { '+inf': Infinity, inf: Infinity, '-inf': -Infinity, nan: NaN };
    const value = special[(raw as string).toLowerCase()] ?? Number(raw);
    expect(Number.isNaN(value) && (raw as string).toLowerCase() !== 'nan', line).toBe(false);
    const family = (name as string).replace(/_(bucket|sum|count)$/, '');
    expect(types.has(name as string) || types.has(family), `no TYPE for ${name}`).toBe(true);
    const labels: Record<string, string> = {};
    for (const l of labelText.matchAll(new RegExp(LABEL, 'g'))) labels[l[1] as string] = l[2] as string;
    samples.push({ name: name as string, labels, value });
  }
  return samples;
}

const { cli, daemon } = useDaemon();
let t: BasicTokens;
beforeAll(async () => {
  t = await basicTokens(cli());
});

async function scrape(d: RunningDaemon = daemon()): Promise<Sample[]> {
  const res = await d.fetch('/metrics');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheus(await res.text());
}

const valueOf = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);

describe('/metrics', () => {
  it('parses as Prometheus text and holds the daemon and process metrics', async () => {
    await send(daemon(), '/healthz'); // requests are listed once there has been one
    const names = new Set((await scrape()).map((s) => s.name));
    for (const name of [
      'archivectl_http_requests_total',
      'archivectl_http_request_duration_seconds_bucket',
      'archivectl_kdf_runs_total',
      'archivectl_kdf_running',
      'archivectl_token_cache_entries',
      'archivectl_token_cache_hits_total',
      'archivectl_last_used_writes_total',
      'archivectl_database_up',
      'archivectl_database_latency_seconds',
      'archivectl_ready',
      'archivectl_connections_open',
      'archivectl_process_cpu_user_seconds_total',
      'archivectl_process_resident_memory_bytes',
    ])
      expect(names.has(name), name).toBe(true);
  });

  it('counts requests by route template and status, and refusals by reason', async () => {
    const before = await scrape();
    for (let i = 0; i < 3; i++) await send(daemon(), '/api/objects');
    await send(daemon(), '/api/actors/12345', { headers: bearer(t.user) });
    await send(daemon(), '/api/objects', { headers: bearer('arc_malformed') });
    await send(daemon(), '/api/objects', { headers: { Authorization: 'Basic eDp5' } });
    await send(daemon(), '/api/objects?api_token=abc');
    await send(daemon(), '/definitely/not/here');
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) =>
      valueOf(after, name, labels) - valueOf(before, name, labels);
    const requests = 'archivectl_http_requests_total';
    expect(delta(requests, { method: 'GET', route: '/api/objects', status: '401' })).toBe(6);
    expect(delta(requests, { method: 'GET', route: '/api/actors/:id' })).toBe(1);
    expect(delta(requests, { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    // Raw paths never become labels.
    expect(after.some((s) => s.labels.route === '/api/actors/12345')).toBe(false);
    const refusals = 'archivectl_auth_refusals_total';
    expect(delta(refusals, { reason: 'missing' })).toBe(3);
    expect(delta(refusals, { reason: 'malformed' })).toBe(1);
    expect(delta(refusals, { reason: 'header' })).toBe(1);
    expect(delta(refusals, { reason: 'api_token' })).toBe(1);
    // The scrape before counted itself.
    expect(delta(requests, { method: 'GET', route: '/metrics', status: '200' })).toBe(1);
  });

  it('times requests in a histogram by method and route: its buckets, +Inf, sum and count', async () => {
    const before = await scrape();
    for (let i = 0; i < 4; i++) await send(daemon(), '/api/objects?perPage=1', { headers: bearer(t.user) });
    await send(daemon(), '/api/objects', { method: 'HEAD', headers: bearer(t.user) });
    const after = await scrape();
    const family = 'archivectl_http_request_duration_seconds';
    const labels = { method: 'GET', route: '/api/objects' };
    const delta = (name: string, more: Record<string, string> = {}) =>
      valueOf(after, name, { ...labels, ...more }) - valueOf(before, name, { ...labels, ...more });
    expect(delta(`${family}_count`)).toBe(4);
    expect(delta(`${family}_bucket`, { le: '+Inf' })).toBe(4);
    expect(delta(`${family}_sum`)).toBeGreaterThan(0);
    const buckets = after.filter(
      (s) => s.name === `${family}_bucket` && s.labels.method === 'GET' && s.labels.route === '/api/objects',
    );
    const bounds = buckets.map((s) => s.labels.le);
    expect(bounds).toEqual([
      '0.005',
      '0.01',
      '0.025',
      '0.05',
      '0.1',
      '0.25',
      '0.5',
      '1',
      '2.5',
      '5',
      '10',
      '30',
      '+Inf',
    ]);
    const counts = buckets.map((s) => s.value);
    expect(counts).toEqual([...counts].sort((a, b) => a - b)); // cumulative
    expect(valueOf(after, `${family}_count`, { method: 'HEAD', route: '/api/objects' })).toBeGreaterThanOrEqual(1);
    expect(after.some((s) => s.name === `${family}_count` && s.labels.status !== undefined)).toBe(false);
  });

  it('counts KDF runs, cache hits and size, and last-used writes', async () => {
    const before = await scrape();
    // Fresh tokens: the first use runs the KDF and records "last used"; the next ones hit the cache.
    await createAccounts(cli(), { fresh: 'user' });
    const fresh = (await createToken(cli(), 'fresh', 'metrics test', 'root')).token;
    for (let i = 0; i < 3; i++)
      expect((await send(daemon(), '/api/objects', { headers: bearer(fresh) })).status).toBe(200);
    // "Last used" is written by a timer of its own: until it has run, the writes stay as they were.
    let after = await scrape();
    const delta = (name: string) => valueOf(after, name) - valueOf(before, name);
    await eventually(async () => {
      after = await scrape();
      return delta('archivectl_last_used_writes_total') >= 1;
    }, 'a last-used write');
    expect(delta('archivectl_kdf_runs_total')).toBe(1);
    expect(delta('archivectl_token_cache_hits_total')).toBe(2);
    expect(delta('archivectl_token_cache_entries')).toBe(1);
    expect(delta('archivectl_last_used_writes_total')).toBeGreaterThanOrEqual(1);
    expect(valueOf(after, 'archivectl_database_up')).toBe(1);
    expect(valueOf(after, 'archivectl_database_latency_seconds')).toBeGreaterThan(0);
  });
});

describe('who may read /metrics', () => {
  let box: Sandbox;
  let d: RunningDaemon;
  beforeAll(async () => {
    box = await createSandbox();
    await patchConfig(box, { metrics: 'off' });
    d = await startDaemon(box);
  });
  afterAll(async () => {
    await d.stop();
    await box.cleanup();
  });

  it('with "metrics": "off" it is the 404 of any unknown path, also from loopback', async () => {
    const r = await send(d, '/metrics');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ error: 'no such endpoint: /metrics' });
  });
});

describe('the duration histogram, with requests of known durations', () => {
  let box: Sandbox;
  let d: Daemon;
  /** The stopwatch moves by `step` ms each time it is read: a request lasts `step` ms. */
  let step = 0;
  let at = 0;
  beforeAll(async () => {
    box = await createSandbox();
    const config = loadConfig(box.configFile, { ...process.env, ...box.env });
    d = await startServer(config, {
      host: '127.0.0.1',
      port: 0,
      logDestination: { write: () => true } as unknown as NodeJS.WritableStream,
      stopwatch: () => (at += step),
    });
  });
  afterAll(async () => {
    await d?.close();
    await box?.cleanup();
  });

  it('counts each request in every bucket from the first bound at or above its duration', async () => {
    // [ms, requests]: below the first bound, on it (bounds are inclusive), between bounds,
    // in a middle bucket, and above the last bound (+Inf only).
    const classes: [number, number][] = [
      [2, 3],
      [5, 1],
      [7, 2],
      [300, 1],
      [40_000, 1],
    ];
    for (const [ms, requests] of classes) {
      step = ms;
      for (let i = 0; i < requests; i++) expect((await fetch(`${d.url}/healthz`)).status).toBe(200);
    }
    step = 0;
    const res = await fetch(`${d.url}/metrics`);
    expect(res.status).toBe(200);
    const samples = parsePrometheus(await res.text());
    const family = 'archivectl_http_request_duration_seconds';
    const labels = { method: 'GET', route: '/healthz' };
    const buckets: Record<string, number> = Object.fromEntries(
      samples
        .filter((s) => s.name === `${family}_bucket` && s.labels.method === 'GET' && s.labels.route === '/healthz')
        .map((s): [string, number] => [s.labels.le ?? '', s.value]),
    );
    expect(buckets).toEqual({
      '0.005': 4,
      '0.01': 6,
      '0.025': 6,
      '0.05': 6,
      '0.1': 6,
      '0.25': 6,
      '0.5': 7,
      '1': 7,
      '2.5': 7,
      '5': 7,
      '10': 7,
      '30': 7,
      '+Inf': 8,
    });
    expect(valueOf(samples, `${family}_count`, labels)).toBe(8);
    expect(valueOf(samples, `${family}_sum`, labels)).toBeCloseTo(0.006 + 0.005 + 0.014 + 0.3 + 40, 9);
    expect(valueOf(samples, 'archivectl_http_requests_total', { ...labels, status: '200' })).toBe(8);
  });
});
