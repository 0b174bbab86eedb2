// Reads request bodies under /api before authentication, because `api_token` in a form or a
// JSON body must be refused before anything else (SPEC §4.1). Parsing problems are recorded,
// not answered: a request without a valid token gets its 401 before its 400.
// JSON and urlencoded bodies go through co-body (size limits, qs without prototype keys);
// multipart through busboy, with file parts streamed to disk, never held in memory.
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import Busboy from 'busboy';
import coBody from 'co-body';
import type { Next } from 'koa';
import { queryHasApiToken } from './api-token.js';
import type { ApiContext, ParsedBody, UploadedFile } from './types.js';

export interface BodyLimits {
  jsonBytes: number;
  formBytes: number;
  uploadBytes: number;
  /** Routes whose file parts are kept (streamed to `tmpDir`); elsewhere files are discarded. */
  keepFiles: (ctx: ApiContext) => boolean;
  tmpDir: string;
}

function hasBody(ctx: ApiContext): boolean {
  const h = ctx.req.headers;
  return h['transfer-encoding'] !== undefined || (h['content-length'] !== undefined && h['content-length'] !== '0');
}

function statusOf(err: unknown): number | undefined {
  const s = (err as { status?: unknown }).status;
  return typeof s === 'number' ? s : undefined;
}

async function readJsonOrForm(ctx: ApiContext, kind: 'json' | 'form', limit: number): Promise<ParsedBody> {
  try {
    if (kind === 'json') {
      // strict: only an object or an array is JSON a client would send here.
      return { kind: 'json', data: await coBody.json(ctx.req, { limit, strict: true }) };
    }
    const { parsed, raw } = (await coBody.form(ctx.req, {
      limit,
      queryString: { parameterLimit: 1000, depth: 5, arrayLimit: 100 },
      returnRawBody: true,
    })) as unknown as { parsed: Record<string, unknown>; raw: string };
    // The parser keeps the first 1000 parameters; the api_token rule looks at every one.
    return { kind: 'form', data: parsed, apiToken: queryHasApiToken(raw) };
  } catch (err) {
    const status = statusOf(err);
    if (status === 413) return { kind: 'invalid', status: 413, message: `the request body exceeds ${limit} bytes` };
    if (status === 415) return { kind: 'invalid', status: 415, message: 'unsupported content encoding' };
    // co-body's JSON parser (bourne) refuses prototype keys rather than letting them through.
    if (err instanceof Error && /prototype/.test(err.message)) {
      return { kind: 'invalid', status: 400, message: 'the JSON body contains a forbidden key (__proto__ or constructor.prototype)' };
    }
    return { kind: 'invalid', status: 400, message: kind === 'json' ? 'malformed JSON body' : 'malformed form body' };
  }
}

function readMultipart(ctx: ApiContext, limits: BodyLimits): Promise<ParsedBody> {
  const keep = limits.keepFiles(ctx);
  return new Promise((resolve) => {
    const fields: Record<string, string> = Object.create(null) as Record<string, string>;
    const files: UploadedFile[] = [];
    const names: string[] = [];
    const open: NodeJS.ReadableStream[] = [];
    const writes: Promise<void>[] = [];
    let problem: ParsedBody | null = null;
    let settled = false;
    const finish = async (result: ParsedBody) => {
      if (settled) return;
      settled = true;
      await Promise.allSettled(writes);
      // Files of a refused body are removed at once.
      if (result.kind !== 'multipart') await Promise.all(files.map((f) => rm(f.path, { force: true })));
      resolve(result);
    };
    const fail = (status: 400 | 413, message: string) => {
      problem ??= { kind: 'invalid', status, message };
    };
    // Stops parsing and ends the part streams, so that pending writes settle and partial
    // temporary files are removed.
    const stopReading = (result: ParsedBody) => {
      ctx.req.unpipe(bb);
      for (const stream of open) (stream as unknown as { destroy(err?: Error): void }).destroy(new Error('stopped'));
      bb.destroy();
      void finish(result);
    };

    let bb: Busboy.Busboy;
    try {
      bb = Busboy({
        headers: ctx.req.headers,
        limits: { fileSize: limits.uploadBytes, files: 4, fields: 100, fieldSize: 65_536, parts: 110, headerPairs: 100 },
      });
    } catch {
      void finish({ kind: 'invalid', status: 400, message: 'malformed multipart body (no boundary)' });
      ctx.req.resume();
      return;
    }
    bb.on('field', (name, value, info) => {
      if (info.nameTruncated || info.valueTruncated) fail(413, 'a multipart field is too long');
      names.push(name);
      fields[name] = value;
    });
    bb.on('file', (name, stream, info) => {
      // The name matters everywhere (the api_token rule); the content only on upload routes.
      names.push(name);
      // A part cut short makes its stream emit 'error'; without a listener that would crash
      // the process, and this runs before authentication.
      stream.on('error', () => fail(400, 'malformed or truncated multipart body'));
      open.push(stream);
      if (!keep) {
        stream.resume();
        return;
      }
      const file: UploadedFile = {
        field: name,
        filename: info.filename ?? '',
        path: path.join(limits.tmpDir, `upload-${randomUUID()}`),
        size: 0,
        sha256: '',
      };
      files.push(file);
      const hash = createHash('sha256');
      const meter = new Transform({
        transform(chunk: Buffer, _enc, done) {
          file.size += chunk.length;
          hash.update(chunk);
          done(null, chunk);
        },
      });
      // Over the limit: answer 413 now instead of reading (and discarding) the rest. Busboy
      // emits 'limit' in the middle of its own write, so it is stopped on the next turn.
      stream.on('limit', () => {
        fail(413, `the upload exceeds ${limits.uploadBytes} bytes`);
        setImmediate(() => stopReading(problem as ParsedBody));
      });
      writes.push(
        mkdir(limits.tmpDir, { recursive: true })
          .then(() => pipeline(stream, meter, createWriteStream(file.path, { mode: 0o600 })))
          .then(() => {
            file.sha256 = hash.digest('hex');
          })
          .catch(() => fail(400, 'the upload could not be stored')),
      );
    });
    bb.on('partsLimit', () => fail(413, 'too many multipart parts'));
    bb.on('filesLimit', () => fail(413, 'too many files'));
    bb.on('fieldsLimit', () => fail(413, 'too many fields'));
    bb.on('error', () => {
      fail(400, 'malformed or truncated multipart body');
      ctx.req.unpipe(bb);
      ctx.req.resume();
      void finish(problem as ParsedBody);
    });
    bb.on('close', () => void finish(problem ?? { kind: 'multipart', fields, files, names }));
    // A client that goes away mid-upload: stop parsing and end the file streams, so the
    // pending writes settle and the partial temporary files are removed.
    const abandon = () => {
      if (settled || ctx.req.complete) return;
      stopReading({ kind: 'invalid', status: 400, message: 'the request was aborted' });
    };
    ctx.req.on('aborted', abandon);
    ctx.req.on('close', abandon);
    ctx.req.pipe(bb);
  });
}

export function readBody(limits: BodyLimits) {
  return async function parseBody(ctx: ApiContext, next: Next): Promise<void> {
    ctx.state.body = { kind: 'none' };
    if (hasBody(ctx)) {
      if (ctx.is('application/json', 'application/*+json')) ctx.state.body = await readJsonOrForm(ctx, 'json', limits.jsonBytes);
      else if (ctx.is('application/x-www-form-urlencoded')) ctx.state.body = await readJsonOrForm(ctx, 'form', limits.formBytes);
      else if (ctx.is('multipart/form-data')) ctx.state.body = await readMultipart(ctx, limits);
      else if (ctx.method === 'POST' || ctx.method === 'PUT') {
        ctx.state.body = { kind: 'invalid', status: 415, message: 'send application/json, a urlencoded form or multipart/form-data' };
      }
    }
    try {
      await next();
    } finally {
      const body = ctx.state.body;
      // Temporary upload files that no handler moved into place are removed.
      if (body.kind === 'multipart') await Promise.all(body.files.map((f) => rm(f.path, { force: true })));
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
