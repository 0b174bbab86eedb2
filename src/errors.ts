// Errors are values with a kind; the HTTP API and the CLI each map the kind to its own form
// (an HTTP status with {"error"}, or a stderr line and an exit status).
export type ErrorKind =
  | 'invalid' // bad input: HTTP 422, CLI exit 1
  | 'not_found' // HTTP 404, CLI exit 1
  | 'forbidden' // HTTP 403, CLI exit 1
  | 'conflict' // HTTP 409, CLI exit 1
  | 'usage' // CLI usage error: exit 2
  | 'config'; // configuration error: exit 2

export class AppError extends Error {
  readonly kind: ErrorKind;
  readonly fields: Record<string, string> | undefined;

  constructor(kind: ErrorKind, message: string, fields?: Record<string, string>) {
    super(message);
    this.name = 'AppError';
    this.kind = kind;
    this.fields = fields;
  }
}

export const invalid = (message: string, fields?: Record<string, string>) => new AppError('invalid', message, fields);
export const notFound = (message: string) => new AppError('not_found', message);
export const forbidden = (message: string) => new AppError('forbidden', message);
export const conflict = (message: string) => new AppError('conflict', message);
export const usage = (message: string) => new AppError('usage', message);
export const configError = (message: string) => new AppError('config', message);

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}

/**
 * Text of an unexpected error as it may be shown or logged: database errors can quote SQL with
 * bound values. Token values go as in redactTokens; other runs of 40 or more base64 characters
 * when they look like a hash (isHashRun), not a file path of a stack trace. Whole runs only, and
 * not the one after `arc_`, whose id redactTokens keeps.
 */
export function redactSecrets(text: string): string {
  const base64 = text.replace(/(?<![A-Za-z0-9+/=])(?<![Aa][Rr][Cc]_)[A-Za-z0-9+/=]{40,}/g, (run) =>
    isHashRun(run) ? '[REDACTED]' : run,
  );
  return redactTokens(base64);
}

/** base64 of `scrypt\0`: how every stored secret hash (scrypt-kdf) begins. */
const SCRYPT_KDF = 'c2NyeXB0';
const MIXED = /^(?=.*[0-9])(?=.*[A-Z])(?=.*[a-z])/;

/**
 * A stored hash (scrypt-kdf's header), or base64 of random bytes: `+` or `=`, or 20 or more
 * characters between slashes of mixed case with digits. A path's folders are names, shorter or
 * of one case (a commit id), so `…/e3b0c442…/src/http/startup` is kept.
 */
function isHashRun(run: string): boolean {
  if (run.startsWith(SCRYPT_KDF) || /[+=]/.test(run)) return true;
  return run.split('/').some((piece) => piece.length >= 20 && MIXED.test(piece));
}

// --- token values in free text (every log line, error texts; README "Token values stay secret") --
// - `arc_` + the 8-character public id + more [A-Za-z0-9] → `arc_<id>[REDACTED]`: the id stays
//   so that operators can tell which token leaked;
// - any other run of LONG_RUN or more [A-Za-z0-9] that may be a value (isSecretRun) → `[REDACTED]`:
//   legacy values (60), and values that lost their `arc_` (54) or are cut (a secret alone is 40);
//   not a run of one case, as commit ids and digests are written (hex), in the path of a checkout
//   that stack traces name;
// - characters count also percent-encoded, even twice by a proxy (`%2561`), as in raw paths.
// One pass finds candidate runs (token characters, `_` and `%`, CANDIDATE_LENGTH or more); only
// those are looked at further (escapes are sorted out per run).

/** Runs of this many token characters are replaced whole. */
const LONG_RUN = 40;
const ID_LENGTH = 8;
const REDACTED = '[REDACTED]';

/** Shorter runs hold neither `arc_` + id + more, nor a long run. */
const CANDIDATE_LENGTH = 'arc_'.length + ID_LENGTH + 1;

const isAlnum = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
const lower = (c: number) => (c >= 0x41 && c <= 0x5a ? c + 0x20 : c);
const RUN_CHARS = new Uint8Array(128);
for (let c = 0; c < 128; c++) RUN_CHARS[c] = isAlnum(c) || c === 0x5f || c === 0x25 ? 1 : 0;
const isRunChar = (c: number) => c < 128 && RUN_CHARS[c] === 1;
const hexDigit = (c: number) =>
  c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x41 && c <= 0x46 ? c - 0x37 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1;

/** Lengths of token values without `arc_` (54) and of legacy values (60): redacted whatever they hold. */
const VALUE_LENGTHS = new Set([54, 60]);

/**
 * Whether a run of `length` [A-Za-z0-9] (`code(i)`: its i-th) may be (part of) a token value.
 * Values are drawn uniformly from 62 characters, so 40 of them without an upper-case or without a
 * lower-case letter come once in about 10^9: a run of one case (a commit id, a hex digest, `kkk…`)
 * is kept, unless it has a value's length.
 */
function isSecretRun(length: number, code: (i: number) => number): boolean {
  if (length < LONG_RUN) return false;
  if (VALUE_LENGTHS.has(length)) return true;
  let upper = false;
  let lowerCase = false;
  for (let i = 0; i < length && !(upper && lowerCase); i++) {
    const c = code(i);
    if (c >= 0x41 && c <= 0x5a) upper = true;
    else if (c >= 0x61 && c <= 0x7a) lowerCase = true;
  }
  return upper && lowerCase;
}

/** Redacts one candidate run (see above); `raw` as it stands in the text, escapes included. */
function redactRun(raw: string): string {
  // Without escapes or `_`, only the long-run rule can apply.
  if (!raw.includes('%') && !raw.includes('_')) {
    return isSecretRun(raw.length, (i) => raw.charCodeAt(i)) ? REDACTED : raw;
  }
  // Decode the run into units: the character each stands for and where it starts in `raw`.
  const codes: number[] = [];
  const starts: number[] = [];
  for (let i = 0; i < raw.length;) {
    starts.push(i);
    let code = raw.charCodeAt(i);
    let next = i + 1;
    if (code === 0x25) {
      // %XX, possibly escaped again (%25XX, %2525XX, …), stands for a token character or `_`;
      // any other escape (or a lone `%`) ends a segment, as any other character does.
      let j = i + 1;
      while (raw.charCodeAt(j) === 0x32 && raw.charCodeAt(j + 1) === 0x35 && j + 3 < raw.length) j += 2;
      const hi = hexDigit(raw.charCodeAt(j));
      const lo = hexDigit(raw.charCodeAt(j + 1));
      code = hi < 0 || lo < 0 ? 0 : hi * 16 + lo;
      if (code === 0x5f || isAlnum(code)) next = j + 2;
      else {
        code = 0;
        next = hi < 0 || lo < 0 ? i + 1 : j + 2;
      }
    }
    codes.push(code);
    i = next;
  }
  const n = codes.length;
  let out = '';
  let copied = 0;
  let segment = 0; // start (unit index) of the current run of [A-Za-z0-9]
  for (let k = 0; k <= n; k++) {
    if (k < n && isAlnum(codes[k] as number)) continue;
    const length = k - segment;
    const rawEnd = k < n ? (starts[k] as number) : raw.length;
    const afterPrefix =
      segment >= 4 &&
      codes[segment - 1] === 0x5f && // _
      lower(codes[segment - 4] as number) === 0x61 && // a
      lower(codes[segment - 3] as number) === 0x72 && // r
      lower(codes[segment - 2] as number) === 0x63; // c
    if (afterPrefix && length > ID_LENGTH) {
      out += raw.slice(copied, starts[segment + ID_LENGTH]) + REDACTED;
      copied = rawEnd;
    } else if (isSecretRun(length, (i) => codes[segment + i] as number)) {
      out += raw.slice(copied, starts[segment]) + REDACTED;
      copied = rawEnd;
    }
    segment = k + 1;
  }
  return copied === 0 ? raw : out + raw.slice(copied);
}

/**
 * `text` with token values redacted (rules above). Safe on a serialised JSON line: the rest of a
 * backslash escape just before a run (`\n`, `\u001b`) is kept as it is, so the line stays JSON.
 */
export function redactTokens(text: string): string {
  let out = '';
  let copied = 0;
  const n = text.length;
  for (let i = 0; i < n;) {
    if (!isRunChar(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    while (i < n && isRunChar(text.charCodeAt(i))) i++;
    if (i - start < CANDIDATE_LENGTH) continue;
    let backslashes = 0;
    for (let b = start - 1; b >= 0 && text.charCodeAt(b) === 0x5c; b--) backslashes++;
    const run = text.slice(start, i);
    // An odd number of backslashes: the run begins with the rest of an escape (`\n`, `\u001b`).
    const escape = backslashes % 2 === 0 ? 0 : /^u[0-9A-Fa-f]{4}/.test(run) ? 5 : 1;
    const redacted = escape === 0 ? redactRun(run) : run.slice(0, escape) + redactRun(run.slice(escape));
    if (redacted !== run) {
      out += text.slice(copied, start) + redacted;
      copied = i;
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** A system error's code (`ENOSPC`, `EACCES`, …), or 'error' when it has none. */
export function errorCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'error';
}

/** No space left for a file: the disk, or the user's quota. */
export const isNoSpace = (code: string): boolean => code === 'ENOSPC' || code === 'EDQUOT';
