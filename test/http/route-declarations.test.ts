// Each route is declared once, beside its handler (src/http/route.ts), and everything else is
// derived from that declaration: a route must say what it reads (query, body) and answers, and
// the tables of docs/http-api.md must be the ones `archivectl routes --markdown` writes from it.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/http/routes/index.js';
import { REPO_ROOT, runInProcess } from '../helpers/cli.js';

const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

describe('the route declarations', () => {
  it('each route says what it reads and answers', () => {
    const problems: string[] = [];
    for (const route of ROUTES) {
      if (!Array.isArray(route.query)) problems.push(`${key(route)}: no query description`);
      if (route.method !== 'GET' && !route.body) problems.push(`${key(route)}: no body description`);
      if (route.body && Object.keys(route.body.content).length === 0) problems.push(`${key(route)}: a body of no type`);
      if (route.summary.trim() === '') problems.push(`${key(route)}: no summary`);
      const statuses = Object.keys(route.answers).map(Number);
      if (!statuses.some((s) => s >= 200 && s < 300)) problems.push(`${key(route)}: no success described`);
      for (const [status, answer] of Object.entries(route.answers)) {
        if (typeof answer === 'string') continue;
        if (answer.description.trim() === '') problems.push(`${key(route)} ${status}: no description`);
        // Every answer but a 304 has a body, and its body a schema.
        if (status !== '304' && Object.keys(answer.content ?? {}).length === 0)
          problems.push(`${key(route)} ${status}: no content`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('declares each method and path once', () => {
    const keys = ROUTES.map(key);
    expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
  });

  it('are what docs/http-api.md tabulates: its access and scope tables are `archivectl routes --markdown`', async () => {
    const r = await runInProcess(['routes', '--markdown'], { env: {}, cwd: REPO_ROOT });
    expect(r.code, r.stderr).toBe(0);
    const docs = await readFile(path.join(REPO_ROOT, 'docs', 'http-api.md'), 'utf8');
    const tables = r.stdout.trim().split('\n\n');
    expect(tables).toHaveLength(2);
    for (const table of tables) {
      const head = table.slice(0, table.indexOf('\n'));
      // The docs hold the table under this head exactly once, and as generated.
      expect(docs.split(head)).toHaveLength(2);
      const start = docs.indexOf(head);
      const end = docs.indexOf('\n\n', start);
      expect(docs.slice(start, end === -1 ? undefined : end), `${head}: run npm run docs:routes`).toBe(table);
    }
  });
});
