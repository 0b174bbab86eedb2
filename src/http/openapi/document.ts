// The description of the API (OpenAPI 3.1), built from the route declarations (../routes/), the
// valibot schemas the handlers parse with and docs/anton-differences.md, once, when it is first
// asked for: a daemon that is never asked never builds it, and `--help` never loads this module.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { SCOPES } from '../../domain/scopes.js';
import { type Route } from '../route.js';
import { reconcileSchemas, schemas } from './components.js';
import { withBounds, type Schema } from './json-schema.js';
import { errorResponses, paths, tagOf } from './operations.js';

/** The checkout or the installed package: the first folder above this module with our package.json. */
function projectFile(name: string): string {
  for (let up = '../'; up.length < 16; up += '../') {
    const url = new URL(`${up}package.json`, import.meta.url);
    if (existsSync(url) && (JSON.parse(readFileSync(url, 'utf8')) as { name?: string }).name === 'archivectl')
      return readFileSync(new URL(`${up}${name}`, import.meta.url), 'utf8');
  }
  throw new Error(`${name} not found above ${import.meta.url}`);
}

const POLICY = '"(token|anonymous|report)"';
/** A Structured Field list of one or more items (a leak report without a token counts under two policies). */
const list = (item: string) => `^${item}(, *${item})*$`;

const text = (description: string, format?: string): Schema => ({
  description,
  schema: { type: 'string', ...(format ? { format } : {}) },
});

const HEADERS: Record<string, Schema> = {
  Location: { ...text('The absolute URL of what was created (from `publicUrl` when set)', 'uri'), required: true },
  SubmissionLocation: {
    ...text(
      "Where the accepted work is followed (a submission has no URL of its own): the objects list narrowed to the new object's identifier, `/api/objects?identifier=…`, absolute (from `publicUrl` when set); its `status` moves from `ingesting` to `ingested` or `failed`",
      'uri',
    ),
    required: true,
  },
  ETag: text('The entity tag, for If-None-Match'),
  LastModified: text('When the content last changed (an HTTP date)'),
  Link: text('RFC 8288 links of a list page: `next`, `prev`, `first`, `last`'),
  TokenExpiration: text(
    'With a token that ends: its first refused instant (RFC 3339, UTC), so a script sees the end coming',
    'date-time',
  ),
  WWWAuthenticate: text(
    '`Bearer realm="archive"`, with `error="invalid_token"` for a refused token (401), and ' +
      '`error="insufficient_scope"` for a role too low or, with `scope="…"`, a scope the token lacks (403)',
  ),
  RetryAfter: { ...text('Seconds to wait before asking again'), schema: { type: 'string', pattern: '^[0-9]+$' } },
  AllowOrigin: {
    description: 'On the cross-origin routes (the reconciliation services): `*`, any page may read the answer',
    schema: { const: '*' },
  },
  RateLimitPolicy: {
    description:
      'On every answer to a client with a rate limit (IETF httpapi RateLimit fields, draft 10): the policy, ' +
      '`"token";q=600;w=3600` — `q` requests per window of `w` seconds; `"token"` for a token, `"anonymous"` ' +
      'for a client address without one, `"report"` for leaked-token reports',
    schema: { type: 'string', pattern: list(`${POLICY};q=[0-9]+;w=[0-9]+`) },
  },
  RateLimit: {
    description:
      'With `RateLimit-Policy`: what is left of it, `"token";r=599;t=3542` — `r` requests left in the window, ' +
      'which ends in `t` seconds',
    schema: { type: 'string', pattern: list(`${POLICY};r=[0-9]+;t=[0-9]+`) },
  },
};

/** Keeps the schemas something refers to (a resource without a create route has no create body). */
function used(all: Record<string, Schema>, rest: unknown): Record<string, Schema> {
  const keep = new Set<string>();
  const visit = (value: unknown) => {
    for (const m of JSON.stringify(value).matchAll(/"#\/components\/schemas\/(\w+)"/g)) {
      const name = m[1] as string;
      if (!keep.has(name)) {
        keep.add(name);
        visit(all[name]);
      }
    }
  };
  visit(rest);
  return Object.fromEntries(Object.entries(all).filter(([name]) => keep.has(name)));
}

export function buildDocument(routes: readonly Route[], version: string): Schema {
  const builtPaths = paths(routes);
  const parts = { paths: builtPaths, responses: errorResponses() };
  const description = [
    'The API of archivectl, an archive and cataloguing service. Answers are JSON: one record as',
    '`{"data": …}`, a list as `{"data": […], "meta": {…}}`, every error as `{"error": "…"}` (a 422 adds',
    '`fields`). Send a token as `Authorization: Bearer <token>`; which routes are open without one',
    'depends on the settings `public_api` and `public_access` (`x-archivectl-access` of each operation).',
    'Unknown query parameters are ignored (OpenRefine and jQuery add `callback` and `_`); unknown',
    'fields of a body are refused.',
    '',
    projectFile('docs/anton-differences.md').replace(/^# /, '## '),
  ].join('\n');
  return withBounds({
    openapi: '3.1.0',
    info: {
      title: 'archivectl',
      version,
      description,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'this daemon' }],
    tags: [...new Set(routes.map((r) => tagOf(r.path)))].map((name) => ({
      name,
      description: name === 'api' ? 'The index and this description' : `/api/${name}`,
    })),
    paths: builtPaths,
    components: {
      schemas: used({ ...schemas(), ...reconcileSchemas() }, parts),
      responses: parts.responses,
      headers: HEADERS,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'A token made by `archivectl token create`. A token may be narrowed to scopes (`--scope`): each ' +
            `operation's \`x-scope\` names the one it needs (${SCOPES.map((s) => `\`${s}\``).join(', ')}; ` +
            '`x-scope-with-ids` with `ids`); a token without scopes has every right of its account.',
        },
      },
    },
  });
}

export interface Served {
  json: string;
  etag: string;
}

let served: Served | undefined;

export const packageVersion = (): string => (JSON.parse(projectFile('package.json')) as { version: string }).version;

/** The description as served: built on first use, then the same text and ETag. */
export function servedDocument(routes: readonly Route[]): Served {
  if (!served) {
    const json = JSON.stringify(buildDocument(routes, packageVersion()));
    served = { json, etag: `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"` };
  }
  return served;
}
