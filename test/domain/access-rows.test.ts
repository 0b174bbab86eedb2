// The access matrix as `archivectl routes` prints it (routeRows, displayPath in
// src/domain/access.ts) and decide() for the routes open to anyone: every row's `open` a
// boolean under the settings, the TEI exports' second row for `?ids=`.
import { describe, expect, it } from 'vitest';
import { decide, displayPath, routeRows } from '../../src/domain/access.js';
import { ROUTES } from '../../src/http/routes/index.js';

const settings = (public_api: boolean, public_access: boolean) => ({ public_api, public_access });

describe('routes open to anyone', () => {
  it('serve requests without a token whatever the settings and the method', () => {
    for (const method of ['GET', 'HEAD', 'POST'])
      for (const s of [settings(false, false), settings(true, true)])
        expect(decide('open', method, s, null), method).toBe('allow');
  });
});

describe('displayPath', () => {
  it('writes every path parameter in braces, whole names', () => {
    expect(displayPath('/api/actors/:id')).toBe('/api/actors/{id}');
    expect(displayPath('/api/ingest/confirm/:id/:part_2')).toBe('/api/ingest/confirm/{id}/{part_2}');
    expect(displayPath('/api/actors')).toBe('/api/actors');
  });
});

describe('routeRows', () => {
  it('says for every row, as a boolean, whether a request without a token is served', () => {
    const closed = routeRows(ROUTES, settings(false, false));
    for (const row of closed) {
      expect(typeof row.open, `${row.method} ${row.path}`).toBe('boolean');
      expect(row.open, `${row.method} ${row.path}`).toBe(row.rule === 'open');
    }
    expect(closed.find((r) => r.path === '/api')).toEqual({
      method: 'GET',
      path: '/api',
      rule: 'open',
      open: true,
      scope: null,
    });
    const open = routeRows(ROUTES, settings(true, true));
    for (const row of open.filter((r) => r.rule === 'editor' || r.rule === 'token')) expect(row.open).toBe(false);
    expect(open.filter((r) => r.rule === 'authority').every((r) => r.open)).toBe(true);
  });

  it('adds the `?ids=` row, with its own rule, to the routes that have one, and only to them', () => {
    const rows = routeRows(ROUTES, settings(false, true));
    const withIds = ROUTES.filter((r) => r.ruleWithIds);
    expect(withIds.length).toBeGreaterThan(0);
    expect(rows).toHaveLength(ROUTES.length + withIds.length);
    for (const r of withIds) {
      const path = displayPath(r.path);
      expect(rows).toContainEqual({ method: r.method, path, rule: r.rule, open: true, scope: 'read' });
      expect(rows).toContainEqual({
        method: r.method,
        path: `${path}?ids=…`,
        rule: r.ruleWithIds,
        open: false,
        scope: 'tei:refresh',
      });
    }
    expect(rows.filter((r) => r.path.endsWith('?ids=…'))).toHaveLength(withIds.length);
    expect(rows.map((r) => `${r.method} ${r.path}`)).toEqual(
      ROUTES.flatMap((r) => {
        const line = `${r.method} ${displayPath(r.path)}`;
        return r.ruleWithIds ? [line, `${line}?ids=…`] : [line];
      }),
    );
  });
});
