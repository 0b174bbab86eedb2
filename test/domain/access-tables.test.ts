// A route's access columns as its declaration writes them (accessRow in src/domain/access.ts),
// and the access and scope tables of docs/http-api.md as `archivectl routes --markdown` prints
// them (accessTables): on a few declarations made here, so each rule of the tables shows.
import { describe, expect, it } from 'vitest';
import { accessRow, accessTables } from '../../src/domain/access.js';

describe('accessRow', () => {
  it('makes a GET a read needing scope read, and a route open to anyone need no scope', () => {
    expect(accessRow('GET', '/api/actors', 'authority', 'actors')).toEqual({
      method: 'GET',
      path: '/api/actors',
      rule: 'authority',
      access: 'read',
      resource: 'actors',
      scope: 'read',
    });
    expect(accessRow('GET', '/api', 'open', 'describe')).toMatchObject({ access: 'read', scope: null });
    expect(accessRow('POST', '/api/tokens/revoke', 'open', 'token')).toMatchObject({ access: 'write', scope: null });
  });

  it('makes another method a write, which must name its scope', () => {
    expect(() => accessRow('POST', '/api/actors', 'editor', 'actors')).toThrow(
      'POST /api/actors writes and names no scope',
    );
    expect(() => accessRow('PUT', '/api/actors/:id', 'token', 'actors', { upload: true })).toThrow(
      'PUT /api/actors/:id writes and names no scope',
    );
    expect(
      accessRow('POST', '/api/sips/import', 'editor', 'sips', { scope: 'sips', upload: true, bodyBytes: 1_024 }),
    ).toEqual({
      method: 'POST',
      path: '/api/sips/import',
      rule: 'editor',
      access: 'write',
      resource: 'sips',
      upload: true,
      bodyBytes: 1_024,
      scope: 'sips',
    });
  });

  it('keeps an access and a scope given, a null scope too', () => {
    // A reconciliation POST only reads.
    expect(
      accessRow('POST', '/api/actors/reconcile', 'authority', 'actors', { access: 'read', crossOrigin: true }),
    ).toMatchObject({ access: 'read', scope: 'read', crossOrigin: true });
    expect(accessRow('GET', '/api/tei/refresh', 'token', 'tei', { scope: 'tei:refresh' })).toMatchObject({
      access: 'read',
      scope: 'tei:refresh',
    });
    expect(accessRow('POST', '/api/objects', 'token', 'objects', { scope: null })).toMatchObject({
      access: 'write',
      scope: null,
    });
  });
});

describe('accessTables', () => {
  const routes = [
    accessRow('GET', '/api', 'open', 'describe'),
    accessRow('GET', '/api/actors', 'authority', 'actors'),
    accessRow('GET', '/api/places', 'authority', 'places'),
    accessRow('GET', '/api/actors/:id', 'authority', 'actors'),
    accessRow('POST', '/api/actors', 'editor', 'actors', { scope: 'catalog:write' }),
    accessRow('POST', '/api/actors/reconcile', 'authority', 'actors', { access: 'read' }),
    accessRow('POST', '/api/places/reconcile', 'authority', 'places', { access: 'read' }),
    accessRow('GET', '/api/tei/actors', 'authority', 'tei', { ruleWithIds: 'token', scopeWithIds: 'tei:refresh' }),
    accessRow('GET', '/api/tei/places', 'authority', 'tei', { ruleWithIds: 'token', scopeWithIds: 'tei:refresh' }),
    accessRow('GET', '/api/tei/refresh', 'token', 'tei'),
    accessRow('GET', '/api/objects', 'token_or_public_api', 'objects'),
    accessRow('GET', '/api/sips', 'editor', 'sips'),
  ];

  it("lists each rule's routes, then each scope's, in the order first declared, a table's routes said once", () => {
    expect(accessTables(routes, ['actors', 'places', 'objects']).split('\n')).toEqual([
      '| route | rule |',
      '|---|---|',
      '| GET /api | **open**: open to anyone, with or without a token |',
      '| GET /api/{actors,places}, GET /api/actors/{id}, POST /api/{actors,places}/reconcile, GET /api/tei/{actors,places} | **authority**: open while public_access is on, or (GET/HEAD) while public_api is on; else token of any role |',
      '| POST /api/actors, GET /api/sips | **editor**: token of an editor or higher |',
      '| GET /api/tei/{actors,places}?ids=…, GET /api/tei/refresh | **token**: token of any role |',
      '| GET /api/objects | **token_or_public_api**: token of any role; open (GET/HEAD) while public_api is on |',
      '',
      '| scope | routes |',
      '|---|---|',
      '| (none) | GET /api |',
      '| `read` | GET /api/{actors,places,objects}, GET /api/actors/{id}, POST /api/{actors,places}/reconcile, GET /api/tei/{actors,places}, GET /api/tei/refresh, GET /api/sips |',
      '| `catalog:write` | POST /api/actors |',
      '| `tei:refresh` | GET /api/tei/{actors,places}?ids=… |',
      '',
    ]);
  });

  it('says a route of a name that is no table as it is', () => {
    const table = accessTables(routes.slice(1, 3), ['actors']);
    expect(table).toContain('| GET /api/actors, GET /api/places | **authority**:');
    expect(table).toContain('| `read` | GET /api/actors, GET /api/places |');
    expect(accessTables(routes.slice(1, 3), [])).toContain('| `read` | GET /api/actors, GET /api/places |');
  });
});
