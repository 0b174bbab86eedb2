import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { invalid } from '../errors.js';
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
    throw invalid(`cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}
