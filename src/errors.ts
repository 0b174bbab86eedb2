// Errors are values with a kind; each door maps the kind to its own form
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

export const invalid = (message: string, fields?: Record<string, string>) =>
  new AppError('invalid', message, fields);
export const notFound = (message: string) => new AppError('not_found', message);
export const forbidden = (message: string) => new AppError('forbidden', message);
export const conflict = (message: string) => new AppError('conflict', message);
export const usage = (message: string) => new AppError('usage', message);
export const configError = (message: string) => new AppError('config', message);

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}

/**
 * Text of an unexpected error as it may be shown or logged. Database errors can quote SQL with
 * bound values; any long run of token-alphabet characters (a value, a hash) is cut out.
 */
export function redactSecrets(text: string): string {
  return text.replace(/[A-Za-z0-9+/=_]{40,}/g, '[REDACTED]');
}

/** A unique-index violation (SQLite or PostgreSQL): someone else wrote the same thing first. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  return e?.code === '23505' || (e?.code === 'SQLITE_CONSTRAINT' && /UNIQUE/.test(String(e.message)));
}
