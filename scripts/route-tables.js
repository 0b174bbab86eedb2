// Writes the access and scope tables of docs/http-api.md from `archivectl routes --markdown`
// (read on stdin), each in place under its own head. `npm run docs:routes` runs it.
import { readFileSync, writeFileSync } from 'node:fs';

const DOCS = new URL('../docs/http-api.md', import.meta.url);
const tables = readFileSync(0, 'utf8').trim().split('\n\n');
let docs = readFileSync(DOCS, 'utf8');
for (const table of tables) {
  const head = table.slice(0, table.indexOf('\n'));
  const start = docs.indexOf(head);
  if (start === -1) throw new Error(`docs/http-api.md has no table headed "${head}"`);
  const end = docs.indexOf('\n\n', start);
  docs = docs.slice(0, start) + table + (end === -1 ? '\n' : docs.slice(end));
}
writeFileSync(DOCS, docs);
