// Multipart bodies (busboy), read as they arrive until the answer no longer depends on the rest (then the
// parser stops); the result resolves only once every file write has settled and unused files are removed.
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import Busboy from 'busboy';
import { isApiTokenKey } from './api-token.js';
import { errorCode, isNoSpace } from '../errors.js';
import type { ApiContext, ParsedBody, UploadedFile } from './types.js';
import { closeAfterAnswer } from './unread-body.js';

export interface MultipartOptions {
  uploadBytes: number;
  /** File parts are streamed to `tmpDir`; otherwise they are discarded. */
  keepFiles: boolean;
  /** The request is refused whatever it holds: it is read only up to its first file part. */
  refused: boolean;
  /** How long the body of a refused request may take to arrive. */
  refusedBodyMs: number;
  tmpDir: string;
}

/** After an early stop the rest is discarded only up to this Content-Length; a larger rest closes the connection. */
const DISCARD_REST_BYTES = 64 * 1024;

const BUSBOY_LIMITS = { files: 4, fields: 100, fieldSize: 65_536, parts: 110, headerPairs: 100 };

const NAMELESS_PART = 'malformed multipart body: a part without a name';
const TRUNCATED = 'malformed or truncated multipart body';

/** A body refused with `status` (body.ts's refusals too). */
export const invalidBody = (status: 400 | 413 | 415, message: string): ParsedBody => ({
  kind: 'invalid',
  status,
  message,
});

/** Removes a temporary upload file; a path that cannot be looked at holds none, and is no error. */
export const removeQuietly = (file: string): Promise<void> => rm(file, { force: true }).catch(() => undefined);

export function readMultipart(ctx: ApiContext, options: MultipartOptions): Promise<ParsedBody> {
  return new Promise((resolve) => new MultipartRead(ctx, options, resolve).start());
}

type Phase = 'reading' | 'stopping' | 'closing';

class MultipartRead {
  private phase: Phase = 'reading';
  /** The first problem seen while reading (answered once the body is read). */
  private problem: ParsedBody | null = null;
  /** closing: a file that could not be stored after the parser closed. */
  private lateFailure: ParsedBody | null = null;
  private received = 0;
  private readonly fields = Object.create(null) as Record<string, string>;
  private readonly files: UploadedFile[] = [];
  private readonly names: string[] = [];
  private readonly parts: Readable[] = [];
  private readonly writes: Promise<void>[] = [];
  private parser: Busboy.Busboy | null = null;
  private slowTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ctx: ApiContext,
    private readonly options: MultipartOptions,
    private readonly resolve: (body: ParsedBody) => void,
  ) {}

  start(): void {
    const req = this.ctx.req;
    if (this.options.refused) {
      // A refused body sent byte by byte cannot hold the connection: refused unread after the time.
      this.slowTimer = setTimeout(() => this.decide(this.refusal(), 'unread'), this.options.refusedBodyMs);
      const clear = () => clearTimeout(this.slowTimer);
      req.once('end', clear).once('close', clear);
    }
    try {
      this.parser = Busboy({ headers: req.headers, limits: { fileSize: this.options.uploadBytes, ...BUSBOY_LIMITS } });
    } catch {
      this.decide(invalidBody(400, 'malformed multipart body (no boundary)'));
      return;
    }
    const parser = this.parser;
    parser.on('field', (name: string | undefined, value, info) => this.onField(name, value, info));
    parser.on('file', (name: string | undefined, stream, info) => this.onFile(name, stream, info.filename));
    parser.on('partsLimit', () => this.fail(413, 'too many multipart parts'));
    parser.on('filesLimit', () => this.fail(413, 'too many files'));
    parser.on('fieldsLimit', () => this.fail(413, 'too many fields'));
    parser.on('error', () => {
      this.fail(400, TRUNCATED);
      this.decide(this.problem as ParsedBody);
    });
    parser.on('close', () => this.onParserClosed());
    // The client went away mid-body: partial files are removed all the same.
    req.on('close', () => {
      if (!req.complete) this.decide(invalidBody(400, 'the request was aborted'));
    });
    req.on('data', (chunk: Buffer) => (this.received += chunk.length));
    req.pipe(parser);
  }

  private fail(status: 400 | 413, message: string): void {
    this.problem ??= invalidBody(status, message);
  }

  /** The answer is a 401 or 403 whatever the rest of the body holds; the parts' names still count. */
  private refusal(): ParsedBody {
    return { kind: 'multipart', fields: this.fields, files: [], names: this.names };
  }

  private onField(name: string | undefined, value: string, info: Busboy.FieldInfo): void {
    if (this.phase !== 'reading') return;
    // Busboy gives a part without a (non-empty) name as undefined: a malformed body, not a crash.
    if (!name) return this.fail(400, NAMELESS_PART);
    if (info.nameTruncated || info.valueTruncated) this.fail(413, 'a multipart field is too long');
    this.names.push(name);
    this.fields[name] = value;
    if (isApiTokenKey(name)) this.decide(this.refusal());
  }

  private onFile(name: string | undefined, stream: Readable, filename: string | undefined): void {
    // A part cut short emits 'error': unheard, it would crash the process (before authentication).
    stream.on('error', () => this.fail(400, TRUNCATED));
    this.parts.push(stream);
    if (this.phase === 'reading' && !name) this.fail(400, NAMELESS_PART);
    if (this.phase !== 'reading' || !name) return void stream.resume();
    // The name matters everywhere (the api_token rule); the content only where files are kept.
    this.names.push(name);
    if (this.options.refused || isApiTokenKey(name)) this.decide(this.refusal());
    if (this.phase !== 'reading' || !this.options.keepFiles) return void stream.resume();
    const file: UploadedFile = {
      field: name,
      filename: filename ?? '',
      path: path.join(this.options.tmpDir, `upload-${randomUUID()}`),
      size: 0,
      sha256: '',
    };
    this.files.push(file);
    // Over the limit: answer 413 now instead of reading (and discarding) the rest.
    stream.on('limit', () => {
      this.fail(413, `the upload exceeds ${this.options.uploadBytes} bytes`);
      this.decide(this.problem as ParsedBody);
    });
    const stored = storeFile(stream, file, this.options.tmpDir, () => this.phase === 'stopping');
    this.writes.push(
      stored.catch((err: unknown) => {
        // The part's stream must be consumed or busboy waits for it forever (and so would the client).
        stream.resume();
        this.storeFailed(err);
      }),
    );
  }

  /** The server's own failure to store a file is answered at once; the rest is not read. */
  private storeFailed(err: unknown): void {
    const code = errorCode(err);
    const failure: ParsedBody = isNoSpace(code)
      ? { kind: 'invalid', status: 507, message: 'no space left to store the upload', code }
      : { kind: 'invalid', status: 500, message: 'the upload could not be stored', code };
    if (this.phase === 'reading') this.decide(failure);
    else if (this.phase === 'closing') this.lateFailure ??= failure;
    // stopping: the files were cut short on purpose, and that answer stands.
  }

  /**
   * reading → stopping. `rest`: 'discard' reads a small rest to its end (see DISCARD_REST_BYTES);
   * 'unread' never waits for it (a refused body that was too slow).
   */
  private decide(outcome: ParsedBody, rest: 'discard' | 'unread' = 'discard'): void {
    if (this.phase !== 'reading') return;
    this.phase = 'stopping';
    setImmediate(() => {
      const req = this.ctx.req;
      if (this.parser) {
        req.unpipe(this.parser);
        this.parser.destroy();
      }
      // Ends the part streams, so that pending writes settle and partial files can be removed.
      for (const stream of this.parts) stream.destroy(new Error('stopped'));
      void this.settle(() => outcome, this.leaveRest(rest));
    });
  }

  /** reading → closing: the whole body was parsed. */
  private onParserClosed(): void {
    if (this.phase !== 'reading') return; // stopping: destroyed on purpose
    this.phase = 'closing';
    const parsed = this.problem ?? { kind: 'multipart', fields: this.fields, files: this.files, names: this.names };
    void this.settle(() => (parsed.kind === 'multipart' && this.lateFailure) || parsed, Promise.resolve());
  }

  /** The rest of the body once parsing stopped: read and discarded if small, else left unread. */
  private leaveRest(rest: 'discard' | 'unread'): Promise<void> {
    const req = this.ctx.req;
    if (req.complete || req.destroyed) return Promise.resolve();
    const length = Number(req.headers['content-length']);
    if (rest === 'unread' || !(Number.isSafeInteger(length) && length - this.received <= DISCARD_REST_BYTES)) {
      closeAfterAnswer(this.ctx);
      return Promise.resolve();
    }
    return new Promise((done) => {
      req.once('end', done).once('close', done);
      req.resume();
    });
  }

  private async settle(answer: () => ParsedBody, restLeft: Promise<void>): Promise<void> {
    clearTimeout(this.slowTimer);
    await Promise.allSettled(this.writes);
    const result = answer();
    const handedOver = result.kind === 'multipart' ? result.files : [];
    await Promise.all(this.files.filter((f) => !handedOver.includes(f)).map((f) => removeQuietly(f.path)));
    await restLeft;
    this.resolve(result);
  }
}

/**
 * Streams one file part to its temporary file; settles only once the file is closed, and resolves once every
 * byte is on disk (fsync) and the size is as counted.
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
