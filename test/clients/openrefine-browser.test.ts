// OpenRefine registers a reconciliation service from its web page, which is another origin than
// the archive's API: a cross-origin GET of the manifest (JSON), then — for older versions — the
// JSONP fallback. Here a real browser (Debian's chromium, headless, driven by playwright-core)
// loads a page from a second server on another address and port and does what OpenRefine does:
// reads the manifest, sends a batch of queries by POST (form, as the spec requires), and uses
// the suggest and preview services the manifest names. The daemon runs with public_access on.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applySettings, loadCatalog } from '../helpers/api.js';
import { useDaemonWithTokens } from '../helpers/http.js';
import { pathOf, systemTool } from '../helpers/system-tools.js';

const CHROMIUM = systemTool('chromium', 'chromium');
const HAVE_CHROMIUM = CHROMIUM.skip === null;
const SKIPPED = HAVE_CHROMIUM ? '' : ` (skipped: ${CHROMIUM.skip})`;
/** Every wait is bounded: no step of the browser may hang the suite. */
const STEP_MS = 20_000;

const { cli, daemon, t } = useDaemonWithTokens();
let pageServer: http.Server | undefined;
let pageUrl = '';
let browser: Browser | undefined;

/**
 * The page: what OpenRefine's reconciliation dialog does from the browser, in plain script.
 * Everything it saw ends up in window.__result (or window.__error), and window.__done is set.
 */
function pageHtml(api: string, token: string): string {
  const script = `
    const API = ${JSON.stringify(api)};
    const TOKEN = ${JSON.stringify(token)};
    const within = (ms, promise, what) => Promise.race([promise, new Promise((_, reject) => setTimeout(() => reject(new Error(what + ' timed out')), ms))]);
    async function run() {
      const out = {};
      const service = API + '/api/actors/reconcile';
      // 1. Adding the service: a cross-origin GET of the manifest, read as JSON (OpenRefine 3.x).
      const manifest = await within(8000, fetch(service).then((r) => r.json()), 'manifest');
      out.manifest = { name: manifest.name, versions: manifest.versions, batchSize: manifest.batchSize };
      // 2. The JSONP fallback of older versions: the manifest through a script tag.
      out.jsonp = await within(8000, new Promise((resolve, reject) => {
        window.registered = (data) => resolve({ name: data.name, versions: data.versions });
        const s = document.createElement('script');
        s.src = service + '?callback=registered';
        s.onerror = () => reject(new Error('JSONP failed'));
        document.head.appendChild(s);
      }), 'jsonp');
      // 3. Reconciling: a batch of queries POSTed as a form field, as the spec requires.
      const form = new URLSearchParams({ queries: JSON.stringify({ q0: { query: 'Schiller, Friedrich' }, q1: { query: 'Goethe', type: 'person' } }) });
      const batch = await within(8000, fetch(service, { method: 'POST', body: form }).then((r) => r.json()), 'queries');
      out.candidates = batch.q0.result;
      out.q1 = batch.q1.result;
      // 4. With a token in the Authorization header (a preflighted request) and a JSON body.
      const authed = await within(8000, fetch(service, {
        method: 'POST',
        headers: { Authorization: 'Bearer ' + TOKEN, 'Content-Type': 'application/json' },
        body: JSON.stringify({ queries: { q0: { query: 'Schiller, Friedrich' } } }),
      }), 'authorized queries');
      out.authorized = { status: authed.status, first: (await authed.json()).q0.result[0]?.name };
      // 5. Suggest, at the URL the manifest names, also with the token.
      const s = manifest.suggest.entity;
      const suggest = await within(8000, fetch(s.service_url + s.service_path + '?prefix=schil', { headers: { Authorization: 'Bearer ' + TOKEN } }).then((r) => r.json()), 'suggest');
      out.suggest = suggest.result.map((r) => r.name);
      // 6. A refused token: the 401 and its message are readable from this origin.
      const refused = await within(8000, fetch(service, { headers: { Authorization: 'Bearer not-a-token' } }), 'refused');
      out.refused = { status: refused.status, error: (await refused.json()).error, challenge: refused.headers.get('WWW-Authenticate') };
      // 7. The preview of the first candidate, in an iframe as OpenRefine shows it.
      const frame = document.createElement('iframe');
      frame.name = 'preview';
      frame.width = manifest.preview.width;
      frame.height = manifest.preview.height;
      frame.src = manifest.preview.url.replace('{{id}}', encodeURIComponent(out.candidates[0].id));
      await within(8000, new Promise((resolve) => { frame.onload = resolve; document.body.appendChild(frame); }), 'preview');
      window.__result = out;
    }
    run().catch((e) => { window.__error = String(e); }).finally(() => { window.__done = true; });
  `;
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Add a reconciliation service</title></head><body><script>${script}</script></body></html>`;
}

beforeAll(async () => {
  await loadCatalog(cli(), 'browser.json', {
    actors: [
      { name: 'Schiller, Friedrich', type: 'person', date_start: '1759', date_end: '1805' },
      { name: 'Goethe, Johann Wolfgang von', type: 'person' },
      { name: 'Goethe-Institut', type: 'corporate_body' },
    ],
  });
  await applySettings(cli(), { public_access: true, public_api: false });
  if (!HAVE_CHROMIUM) return;
  const html = pageHtml(new URL(daemon().url).origin, t.user);
  // Another origin: another loopback address (127.0.0.2) and another port than the daemon's.
  pageServer = http.createServer((req, res) => {
    res.writeHead(req.url === '/' ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(req.url === '/' ? html : '');
  });
  await new Promise<void>((resolve, reject) => {
    pageServer?.once('error', reject);
    pageServer?.listen(0, '127.0.0.2', resolve);
  });
  pageUrl = `http://127.0.0.2:${(pageServer.address() as AddressInfo).port}/`;
  browser = await chromium.launch({ executablePath: pathOf(CHROMIUM, 'chromium'), headless: true, timeout: STEP_MS });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (pageServer ? pageServer.close(() => resolve()) : resolve()));
});

describe(`OpenRefine in a browser${SKIPPED}`, () => {
  it.skipIf(!HAVE_CHROMIUM)(
    'registers the reconciliation service from another origin (JSON, then JSONP) and gets candidates, suggestions and a preview',
    async () => {
      const b = browser as Browser;
      const context = await b.newContext();
      try {
        const page = await context.newPage();
        page.setDefaultTimeout(STEP_MS);
        const consoleErrors: string[] = [];
        page.on('console', (m) => {
          if (m.type() === 'error') consoleErrors.push(m.text());
        });
        await page.goto(pageUrl, { timeout: STEP_MS, waitUntil: 'load' });
        expect(new URL(page.url()).origin).not.toBe(new URL(daemon().url).origin);
        await page.waitForFunction(() => (window as unknown as { __done?: boolean }).__done === true, null, {
          timeout: STEP_MS,
        });
        const seen = await page.evaluate(() => {
          const w = window as unknown as { __result?: unknown; __error?: string };
          return { result: w.__result, error: w.__error };
        });
        expect(seen.error, `${seen.error ?? ''}\n${consoleErrors.join('\n')}`).toBeUndefined();
        const out = seen.result as {
          manifest: { name: string; versions: string[]; batchSize: number };
          jsonp: { name: string; versions: string[] };
          candidates: { id: string; name: string; score: number; match: boolean }[];
          q1: { name: string }[];
          authorized: { status: number; first: string };
          suggest: string[];
          refused: { status: number; error: string; challenge: string | null };
        };
        expect(out.manifest).toEqual({ name: 'archivectl actors', versions: ['0.1', '0.2'], batchSize: 50 });
        expect(out.jsonp).toEqual({ name: 'archivectl actors', versions: ['0.1', '0.2'] });
        expect(out.candidates[0]).toMatchObject({ name: 'Schiller, Friedrich', score: 100, match: true });
        expect(out.q1.map((c) => c.name)).toEqual(['Goethe, Johann Wolfgang von']);
        expect(out.authorized).toEqual({ status: 200, first: 'Schiller, Friedrich' });
        expect(out.suggest).toEqual(['Schiller, Friedrich']);
        expect(out.refused.status).toBe(401);
        expect(out.refused.error).toMatch(/token/);
        expect(out.refused.challenge).toMatch(/^Bearer realm="archive"/);
        // The preview rendered in the iframe.
        const frame = page.frame({ name: 'preview' });
        expect(frame).not.toBeNull();
        expect(await frame?.textContent('h1', { timeout: STEP_MS })).toBe('Schiller, Friedrich');
        // The browser blocked nothing (the 401 above and the page server's favicon 404 are logged
        // as failed loads, which is what they are).
        expect(consoleErrors.filter((e) => /CORS|Access-Control|blocked|Refused/i.test(e))).toEqual([]);
      } finally {
        await context.close();
      }
    },
    90_000,
  );
});
