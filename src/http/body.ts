// Request bodies under /api, read once the route and the Authorization header are judged and
// before their refusals are answered: `api_token` in a form or JSON body is refused first (SPEC
// §4.1). A request already known to be refused has its body read only as far as that rule needs,
// and only while it arrives promptly. Problems are recorded, not answered: a request without a
// valid token gets its 401 before its 400. JSON and forms: co-body (size limits, qs without
// prototype keys); multipart: busboy, file parts streamed to disk, never held in memory.
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, rm, stat } from 'node:fs/promises';
import type { Socket } from 'node:net';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable } from 'node:stream';
import Busboy from 'busboy';
import coBody from 'co-body';
import type { Next } from 'koa';
import { isApiTokenKey, queryHasApiToken } from './api-token.js';
import { markRefusedBody } from './connection-limits.js';
import { errorCode, isNoSpace } from '../errors.js';
import type { ApiContext, ParsedBody, UploadedFile } from './types.js';

interface BodyLimits {
  jsonBytes: number;
  formBytes: number;
  uploadBytes: number;
  /** Routes whose file parts are kept (streamed to `tmpDir`); elsewhere files are discarded. */
  keepFiles: (ctx: ApiContext) => boolean;
  /** Whether the request is already known to be refused: its body is read only for an api_token. */
  refused: (ctx: ApiContext) => boolean;
  /** How long the body of a refused request may take to arrive (see readWithin, readMultipart). */
  refusedBodyMs: number;
  tmpDir: string;
}

export function hasBody(ctx: ApiContext): boolean {
  const h = ctx.req.headers;
  return h['transfer-encoding'] !== undefined || (h['content-length'] !== undefined && h['content-length'] !== '0');
}

const invalidBody = (status: 400 | 413 | 415, message: string): ParsedBody => ({ kind: 'invalid', status, message });

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

const NAMELESS_PART = 'malformed multipart body: a part without a name';

/**
 * Streams one file part to its temporary file. Settles only once the file is closed, so a cleanup
 * awaiting it is not overtaken by a late open; a body `stopped` by then creates no file. Resolves
 * once every byte is on disk (fsync) and the size is as counted: then `size` and `sha256` are right.
 */
async function storeFile(stream: Readable, file: UploadedFile, tmpDir: string, stopped: () => boolean): Promise<void> {
  await mkdir(tmpDir, { recursive: true });
  if (stopped()) {
    stream.resume();
    return;
  }
  const handle = await open(file.path, 'wx', 0o600);
  try {
    const hash = createHash('sha256');
    const meter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        file.size += chunk.length;
        hash.update(chunk);
        done(null, chunk);
      },
    });
    // `flush`: fsync before the stream closes the file; the pipeline settles after both.
    await pipeline(stream, meter, handle.createWriteStream({ flush: true }));
    const { size } = await stat(file.path);
    if (size !== file.size) throw new Error(`the upload file holds ${size} of ${file.size} bytes`);
    file.sha256 = hash.digest('hex');
  } finally {
    await handle.close(); // resolves at once when the stream closed it already
  }
}

/** Removes a temporary upload file; a path that cannot be looked at holds none, and is no error. */
const removeQuietly = (file: string): Promise<void> => rm(file, { force: true }).catch(() => undefined);

/**
 * When reading stops early, the rest is discarded only when Content-Length says it is this small:
 * a client still writing into a closed connection gets a reset (EPIPE) and may never see the
 * answer. A larger or chunked rest is never read: the answer carries `Connection: close`.
 */
const DISCARD_REST_BYTES = 64 * 1024;
/** How long a connection closed on an unread body goes on reading (and discarding) after the answer. */
const LINGER_MS = 2_000;

/**
 * Answers with `Connection: close`, then closes lingering: closed at once, what the client still
 * sends meets a reset that can throw the answer away unread (seen under load: clients got no 413
 * at all). Instead our FIN follows the answer, and the connection discards what the client still
 * sends until it closes its side or LINGER_MS has passed; the connection limits count it meanwhile.
 */
function closeAfterAnswer(ctx: ApiContext): void {
  const req = ctx.req;
  ctx.set('Connection', 'close');
  req.socket.destroySoon = function lingeringClose(this: Socket) {
    this.end();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
    // The body arrives through the request (the parser stops the socket while the request's
    // buffer is full): it is the request that must flow, into nothing.
    req.resume();
  };
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

/**
 * Multipart bodies, parsed as they arrive. Reading stops early (the rest left as DISCARD_REST_BYTES
 * says) once the answer no longer depends on the rest: at an `api_token` part; at the first file
 * part of a request known to be refused, or once `refusedBodyMs` has passed (the result then still
 * names the parts seen, for the api_token rule); at a file over `uploadBytes` or a malformed body.
 *
 * Temporary files are removed only in `finish`, in this order: (1) no part is accepted any more
 * (`decided`/`settled`, checked by every handler, so no write starts after the next step took its
 * list); (2) every file write has settled (storeFile); (3) the files not handed to the handler are
 * removed, at once, also while the rest of the body is still being discarded; (4) only then is
 * the body resolved and answered.
 */
function readMultipart(ctx: ApiContext, limits: BodyLimits, refused: boolean): Promise<ParsedBody> {
  const keep = limits.keepFiles(ctx);
  const req = ctx.req;
  return new Promise((resolve) => {
    const fields: Record<string, string> = Object.create(null) as Record<string, string>;
    const files: UploadedFile[] = [];
    const names: string[] = [];
    const partStreams: Readable[] = [];
    const writes: Promise<void>[] = [];
    let received = 0;
    let problem: ParsedBody | null = null;
    /** The outcome once reading stops early: later parts are discarded, no file is created. */
    let decided: ParsedBody | null = null;
    // A file that could not be stored (507 or 500), apart from `decided`: a full disk can show
    // after the parser has closed (the last write, the flush), and then still decides the answer.
    let storeFailure: ParsedBody | null = null;
    let settled = false;
    const finish = async (parsed: ParsedBody, restLeft: Promise<void> = Promise.resolve()) => {
      if (settled) return;
      settled = true;
      await Promise.allSettled(writes);
      const result = parsed.kind === 'multipart' && storeFailure !== null ? storeFailure : parsed;
      const handedOver = result.kind === 'multipart' ? result.files : [];
      await Promise.all(files.filter((f) => !handedOver.includes(f)).map((f) => removeQuietly(f.path)));
      await restLeft;
      resolve(result);
    };
    const fail = (status: 400 | 413, message: string) => void (problem ??= invalidBody(status, message));
    /** Set when a refused body ran out of time: its rest is never waited for. */
    let tooSlow = false;
    /** The rest of the body, once parsing stopped: see DISCARD_REST_BYTES. */
    const leaveRest = (): Promise<void> => {
      if (req.complete || req.destroyed) return Promise.resolve();
      const length = Number(req.headers['content-length']);
      if (tooSlow || !(Number.isSafeInteger(length) && length - received <= DISCARD_REST_BYTES)) {
        closeAfterAnswer(ctx);
        return Promise.resolve();
      }
      return new Promise((done) => {
        req.once('end', done);
        req.once('close', done);
        req.resume();
      });
    };
    let bb: Busboy.Busboy | null = null;
    // Stops parsing and ends the part streams, so that pending writes settle and partial
    // temporary files are removed (also when the client goes away mid-upload).
    const stopReading = (result: ParsedBody) => {
      if (settled) return;
      decided ??= result;
      if (bb) {
        req.unpipe(bb);
        bb.destroy();
      }
      for (const stream of partStreams) stream.destroy(new Error('stopped'));
      void finish(result, leaveRest());
    };
    // Busboy emits its events in the middle of its own write: the outcome is decided at once
    // (no further part is written), and parsing is stopped on the next turn.
    const decide = (result: ParsedBody) => {
      if (decided) return;
      decided = result;
      setImmediate(() => stopReading(result));
    };
    /** The answer is a 401 or 403 whatever the rest of the body holds. */
    const refuseNow = () => decide({ kind: 'multipart', fields, files: [], names });
    if (refused) {
      const timer = setTimeout(() => {
        if (decided || settled) return;
        tooSlow = true;
        refuseNow();
      }, limits.refusedBodyMs);
      req.once('end', () => clearTimeout(timer));
      req.once('close', () => clearTimeout(timer));
    }

    try {
      bb = Busboy({
        headers: req.headers,
        limits: {
          fileSize: limits.uploadBytes,
          files: 4,
          fields: 100,
          fieldSize: 65_536,
          parts: 110,
          headerPairs: 100,
        },
      });
    } catch {
      stopReading(invalidBody(400, 'malformed multipart body (no boundary)'));
      return;
    }
    bb.on('field', (name: string | undefined, value, info) => {
      if (decided || settled) return;
      // Busboy gives a part without a (non-empty) name as undefined: a malformed body, not a crash.
      if (!name) return fail(400, NAMELESS_PART);
      if (info.nameTruncated || info.valueTruncated) fail(413, 'a multipart field is too long');
      names.push(name);
      fields[name] = value;
      if (isApiTokenKey(name)) refuseNow();
    });
    bb.on('file', (name: string | undefined, stream, info) => {
      // A part cut short emits 'error': unheard, it would crash the process (before authentication).
      stream.on('error', () => fail(400, 'malformed or truncated multipart body'));
      partStreams.push(stream);
      if (!decided && !settled && !name) fail(400, NAMELESS_PART);
      if (decided || settled || !name) {
        stream.resume();
        return;
      }
      // The name matters everywhere (the api_token rule); the content only on upload routes.
      names.push(name);
      if (refused || isApiTokenKey(name)) refuseNow();
      if (decided || !keep) {
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
      // Over the limit: answer 413 now instead of reading (and discarding) the rest.
      stream.on('limit', () => {
        fail(413, `the upload exceeds ${limits.uploadBytes} bytes`);
        decide(problem as ParsedBody);
      });
      writes.push(
        storeFile(stream, file, limits.tmpDir, () => decided !== null).catch((err: unknown) => {
          // The part's stream must be consumed or busboy waits for it forever (and so would the
          // client). The server's own failure is answered at once; the rest is not read.
          stream.resume();
          if (decided) return; // stopped on purpose (or failed already): that answer stands
          const code = errorCode(err);
          storeFailure = isNoSpace(code)
            ? { kind: 'invalid', status: 507, message: 'no space left to store the upload', code }
            : { kind: 'invalid', status: 500, message: 'the upload could not be stored', code };
          decide(storeFailure);
        }),
      );
    });
    bb.on('partsLimit', () => fail(413, 'too many multipart parts'));
    bb.on('filesLimit', () => fail(413, 'too many files'));
    bb.on('fieldsLimit', () => fail(413, 'too many fields'));
    bb.on('error', () => {
      fail(400, 'malformed or truncated multipart body');
      stopReading(decided ?? (problem as ParsedBody));
    });
    bb.on('close', () => void finish(decided ?? problem ?? { kind: 'multipart', fields, files, names }));
    const abandon = () => {
      if (!settled && !req.complete) stopReading(invalidBody(400, 'the request was aborted'));
    };
    req.on('aborted', abandon);
    req.on('close', abandon);
    req.on('data', (chunk: Buffer) => (received += chunk.length));
    req.pipe(bb);
  });
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
      else if (ctx.is('multipart/form-data')) ctx.state.body = await readMultipart(ctx, limits, refused);
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
