import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { errorCode, invalid, usage } from '../errors.js';
import { io } from './io.js';

/** The text of a file argument (relative to the run's working directory); "-" is standard input. */
export async function readInput(file: string): Promise<string> {
  if (file === '-') {
    const parts: Buffer[] = [];
    for await (const chunk of io().stdin) parts.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    return Buffer.concat(parts).toString('utf8');
  }
  try {
    return await readFile(path.resolve(io().cwd, file), 'utf8');
  } catch (err) {
    throw invalid(`cannot read ${file} (${errorCode(err)})`);
  }
}

/**
 * A token value, typed without echo in a terminal, else the first non-blank line of standard
 * input; never an argument (it would stay in shell history and show in ps).
 */
export async function readTokenValue(): Promise<string> {
  const { askSecret } = await import('./ask.js');
  const text = (await askSecret('Token value:')) ?? (await readInput('-'));
  const value = text.trim().split(/\r?\n/, 1)[0]?.trim();
  if (!value) throw usage('no token value on standard input');
  return value;
}
