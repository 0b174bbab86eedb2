// TEI test helpers: jing against tei_all.rng (Debian's `jing`, installed by .ci/run; the schema
// is a copy in test/fixtures/specs/tei/, see its README), rows of the TEI mapping with every
// optional field empty, and the exports as a daemon serves them.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { ActorRow, PlaceRow } from '../../src/domain/catalog/tei/document.js';
import type { Client } from './api.js';
import { pathOf, systemTool } from './system-tools.js';

export const SCHEMA = fileURLToPath(new URL('../fixtures/specs/tei/tei_all.rng', import.meta.url));

const tool = systemTool('jing', 'jing');
/** Why the schema tests cannot run here, or null. */
export const SKIP = tool.skip;

/** Runs jing once over several files: the error lines (empty when all are valid). */
export function jing(files: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      pathOf(tool, 'jing'),
      [SCHEMA, ...files],
      { maxBuffer: 16 * 1024 * 1024, timeout: 120_000 },
      (err, stdout) => {
        // jing exits 1 and lists "file:line:col: error: …" on stdout when a file is invalid;
        // its stderr carries classpath warnings of the Debian wrapper only.
        if (err && typeof err.code !== 'number') reject(err instanceof Error ? err : new Error(String(err)));
        else resolve(stdout.trim());
      },
    );
  });
}

/** The content of the first `<name>` element (without attributes) of a document; '' when there is none. */
export const elementContent = (xml: string, name: string): string =>
  new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(xml)?.[1] ?? '';

/** The persons (and families) and the organisations of a TEI document of actors. */
export const actorLists = (xml: string): { listPerson: string; listOrg: string } => ({
  listPerson: elementContent(xml, 'listPerson'),
  listOrg: elementContent(xml, 'listOrg'),
});

export const actor = (over: Partial<ActorRow> & Pick<ActorRow, 'id' | 'type' | 'name'>): ActorRow => ({
  label: null,
  alternative_names: null,
  date_start: null,
  date_end: null,
  comment: null,
  gnd: null,
  ...over,
});

export const place = (over: Partial<PlaceRow> & Pick<PlaceRow, 'id' | 'name'>): PlaceRow => ({
  label: null,
  city: null,
  state: null,
  address: null,
  country_code: null,
  location: null,
  alternative_names: null,
  comment: null,
  gnd: null,
  geonames: null,
  ...over,
});

/** GET /api/tei/{kind}{query}: the document, asserting a 200 of application/tei+xml. */
export async function fetchTei(api: Client, token: string, kind: string, query = ''): Promise<string> {
  const r = await api.get(`/api/tei/${kind}${query}`, token);
  expect(r.status, r.text.slice(0, 300)).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^application\/tei\+xml/);
  return r.text;
}
