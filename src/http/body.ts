// Request bodies under /api, read once the route and Authorization are judged: `api_token` in a body is refused
// first; problems are recorded, so a request without a valid token gets its 401 before its 400.
import coBody from 'co-body';
import type { Next } from 'koa';
import { queryHasApiToken } from './api-token.js';
import { markRefusedBody } from './limits/connection-limits.js';
import { invalidBody, readMultipart, removeQuietly } from './multipart.js';
import type { ApiContext, ParsedBody } from './types.js';
import { closeAfterAnswer } from './unread-body.js';

interface BodyLimits {
  jsonBytes: number;
  formBytes: number;
  uploadBytes: number;
  /** Routes whose file parts are kept (streamed to `tmpDir`); elsewhere files are discarded. */
  keepFiles: (ctx: ApiContext) => boolean;
  /** Whether the request is already known to be refused: its body is read only for an api_token. */
  refused: (ctx: ApiContext) => boolean;
  /** How long the body of a refused request may take to arrive (see readWithin, multipart.ts). */
  refusedBodyMs: number;
  tmpDir: string;
}

export function hasBody(ctx: ApiContext): boolean {
  const h = ctx.req.headers;
  return h['transfer-encoding'] !== undefined || (h['content-length'] !== undefined && h['content-length'] !== '0');
}

async function readJsonOrForm(ctx: ApiContext, kind: 'json' | 'form', limit: number): Promise<ParsedBody> {
  try {
    // strict: only an object or an array is JSON a client would send here.
    if (kind === 'json') return { kind: 'json', data: await coBody.json(ctx.req, { limit, strict: true }) };
    const { parsed, raw } = (await coBody.form(ctx.req, {
      limit,
      queryString: { parameterLimit: 1000, depth: 5, arrayLimit: 100 },
      returnRawBody: true,
    })) as unknown as { parsed: Record<string, unknown>; raw: string };
    // The parser keeps the first 1000 parameters; the api_token rule looks at every one.
    return { kind: 'form', data: parsed, apiToken: queryHasApiToken(raw) };
  } catch (err) {
    const { status } = err as { status?: unknown };
    if (status === 413) return invalidBody(413, `the request body exceeds ${limit} bytes`);
    if (status === 415) return invalidBody(415, 'unsupported content encoding');
    // co-body's JSON parser (bourne) refuses prototype keys rather than letting them through.
    if (err instanceof Error && /prototype/.test(err.message))
      return invalidBody(400, 'the JSON body contains a forbidden key (__proto__ or constructor.prototype)');
    return invalidBody(400, kind === 'json' ? 'malformed JSON body' : 'malformed form body');
  }
}

/** A refused request's body, if it comes within `ms`: one sent byte by byte cannot hold a connection. */
async function readWithin(ctx: ApiContext, read: Promise<ParsedBody>, ms: number): Promise<ParsedBody> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)));
  try {
    const body = await Promise.race([read, late]);
    if (body !== null) return body;
  } finally {
    clearTimeout(timer);
  }
  read.catch(() => undefined); // it ends with the connection
  closeAfterAnswer(ctx);
  return { kind: 'none' };
}

export function readBody(limits: BodyLimits) {
  return async function parseBody(ctx: ApiContext, next: Next): Promise<void> {
    ctx.state.body = { kind: 'none' };
    if (hasBody(ctx)) {
      const refused = limits.refused(ctx);
      if (refused) markRefusedBody(ctx.req);
      const read = (body: Promise<ParsedBody>) => (refused ? readWithin(ctx, body, limits.refusedBodyMs) : body);
      const cap = ctx.state.route?.bodyBytes ?? Infinity;
      if (ctx.is('application/json', 'application/*+json'))
        ctx.state.body = await read(readJsonOrForm(ctx, 'json', Math.min(cap, limits.jsonBytes)));
      else if (ctx.is('application/x-www-form-urlencoded'))
        ctx.state.body = await read(readJsonOrForm(ctx, 'form', Math.min(cap, limits.formBytes)));
      else if (ctx.is('multipart/form-data'))
        ctx.state.body = await readMultipart(ctx, {
          uploadBytes: limits.uploadBytes,
          keepFiles: limits.keepFiles(ctx),
          refused,
          refusedBodyMs: limits.refusedBodyMs,
          tmpDir: limits.tmpDir,
        });
      else if (ctx.method === 'POST' || ctx.method === 'PUT')
        ctx.state.body = invalidBody(415, 'send application/json, a urlencoded form or multipart/form-data');
    }
    try {
      await next();
    } finally {
      const body = ctx.state.body;
      // Temporary upload files that no handler moved into place are removed.
      if (body.kind === 'multipart') await Promise.all(body.files.map((f) => removeQuietly(f.path)));
    }
  };
}

/** Names of the top-level keys of a body, for the api_token rule. */
export function bodyKeys(body: ParsedBody): string[] {
  switch (body.kind) {
    case 'json':
      return body.data && typeof body.data === 'object' && !Array.isArray(body.data) ? Object.keys(body.data) : [];
    case 'form':
      return body.apiToken ? [...Object.keys(body.data), 'api_token'] : Object.keys(body.data);
    case 'multipart':
      return body.names;
    default:
      return [];
  }
}
