import { readFile } from 'node:fs/promises';
import { invalid } from '../errors.js';

/** The text of a file argument; "-" is standard input. */
export async function readInput(file: string): Promise<string> {
  if (file === '-') {
    const parts: Buffer[] = [];
    for await (const chunk of process.stdin) parts.push(chunk as Buffer);
    return Buffer.concat(parts).toString('utf8');
  }
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw invalid(`cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}
