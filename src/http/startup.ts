// What must hold before the daemon says it listens; else it stops at once with one line saying why.
import { randomUUID } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { mkdir, open, rm } from 'node:fs/promises';
import net, { type Server } from 'node:net';
import path from 'node:path';
import { shellWord, trustedPath, untrustedOwnerAndMode } from '../config/file-trust.js';
import { configError, errorCode } from '../errors.js';

/** A reason the daemon cannot start, shown as `error: <message>`. */
export class StartupError extends Error {
  override name = 'StartupError';
}

/** Makes sure uploads can be written under `dataDir` (0700); a crashed run's leftovers are removed. */
export async function prepareDataDir(dataDir: string): Promise<void> {
  const fail = (what: string, err: unknown) =>
    new StartupError(`cannot start: dataDir ${dataDir} ${what} (${errorCode(err)})`);
  try {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw fail('cannot be created', err);
  }
  await rm(path.join(dataDir, 'tmp'), { recursive: true, force: true }).catch(() => undefined);
  // The permission bits alone do not say it (root, ACLs, a read-only mount): try it.
  const probe = path.join(dataDir, `.write-check-${randomUUID()}`);
  try {
    const handle = await open(probe, 'wx', 0o600);
    await handle.close();
  } catch (err) {
    throw fail('is not writable', err);
  } finally {
    await rm(probe, { force: true }).catch(() => undefined);
  }
}

const LISTEN_PROBLEMS: Record<string, string> = {
  EADDRINUSE: 'the address is already in use',
  EADDRNOTAVAIL: 'no such address on this machine',
  EACCES: 'permission denied (ports below 1024 need privileges)',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve',
  EAI_FAIL: 'the host name does not resolve',
};

/** Listens, or rejects with one line naming the address and the reason. */
export function listenOn(server: Server, host: string, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      const code = errorCode(err);
      const shown = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
      reject(new StartupError(`cannot listen on ${shown}: ${LISTEN_PROBLEMS[code] ?? err.message} (${code})`));
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/**
 * Listens on the sockets systemd passed: the first becomes the server's own, the others hand it their connections
 * and are returned, for the caller to close.
 */
export async function listenOnSockets(server: Server, fds: number[]): Promise<Server[]> {
  const others: Server[] = [];
  try {
    for (const [i, fd] of fds.entries()) {
      const target = i === 0 ? server : net.createServer((socket) => server.emit('connection', socket));
      if (i > 0) others.push(target);
      await new Promise<void>((resolve, reject) => {
        const onError = (err: NodeJS.ErrnoException) =>
          reject(
            new StartupError(
              `cannot listen on the socket systemd passed as fd ${fd}: ${err.message} (${errorCode(err)})`,
            ),
          );
        target.once('error', onError);
        target.listen({ fd }, () => {
          target.off('error', onError);
          resolve();
        });
      });
    }
  } catch (err) {
    for (const other of others) other.close();
    throw err;
  }
  return others;
}

/** The one line for a database that cannot be opened, reached or migrated. */
export function databaseUnreachable(err: unknown, client: string): StartupError {
  if (err instanceof StartupError) return err;
  const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
  return new StartupError(`cannot start: the ${client === 'pg' ? 'PostgreSQL' : 'SQLite'} database: ${message}`);
}

export interface TlsFiles {
  cert: Buffer;
  key: Buffer;
}

/**
 * The certificate and key, read once. The key is refused when another user could have written it, and when
 * every user may read it; its group may (Debian's `ssl-cert`).
 */
export function readTlsFiles(tls: { cert: string; key: string }): TlsFiles {
  const cert = readPem(tls.cert, 'tls.cert');
  // The key's name (its directory, a symbolic link) is judged, then the file opened (its owner and
  // mode, by fstat): what is judged is what is read.
  const named = trustedPath(tls.key, 'TLS key file');
  if (named.problem) throw configError(`config error: ${named.problem}`);
  return { cert, key: readPem(named.path ?? tls.key, 'tls.key', keyProblem) };
}

const keyProblem = (file: string, st: { uid: number; mode: number }) =>
  untrustedOwnerAndMode(st, file, 'TLS key file') ?? keyReadableByAll(file, st.mode);

function keyReadableByAll(file: string, mode: number): string | null {
  if ((mode & 0o004) === 0) return null;
  const octal = (mode & 0o777).toString(8).padStart(4, '0');
  return (
    `the TLS key file ${file} has mode ${octal}: every user may read the private key. ` +
    `Fix it with: chmod o-rwx ${shellWord(file)} (and replace the key if others may have read it)`
  );
}

/** Reads a PEM file; `refuse` judges the file opened (by its mode) before it is read. */
function readPem(
  file: string,
  key: string,
  refuse: (file: string, st: { uid: number; mode: number }) => string | null = () => null,
): Buffer {
  const cannot = (err: unknown) => configError(`config error: cannot read "${key}" ${file} (${errorCode(err)})`);
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    throw cannot(err);
  }
  let why: string | null;
  let pem: Buffer;
  try {
    why = refuse(file, fstatSync(fd));
    pem = why ? Buffer.alloc(0) : readFileSync(fd);
  } catch (err) {
    throw cannot(err);
  } finally {
    closeSync(fd);
  }
  if (why) throw configError(`config error: ${why}`);
  return pem;
}
