#!/usr/bin/env node
// Prints a procedure of the docs as written: the ```sh block that follows the line
// `<!-- procedure: NAME -->` in the first of the given Markdown files that has one.
//   node scripts/extract-procedure.js NAME FILE.md [FILE.md ...]
// Exits 1, naming the files searched, when none has it (or twice).
import { readFileSync } from 'node:fs';

const [name, ...files] = process.argv.slice(2);
if (!name || files.length === 0) {
  console.error('usage: extract-procedure.js NAME FILE.md [FILE.md ...]');
  process.exit(2);
}
const marker = `<!-- procedure: ${name} -->`;
for (const file of files) {
  const lines = readFileSync(file, 'utf8').split('\n');
  const at = lines.flatMap((line, i) => (line.trim() === marker ? [i] : []));
  if (at.length === 0) continue;
  if (at.length > 1) {
    console.error(`${file}: procedure ${name} is marked ${at.length} times`);
    process.exit(1);
  }
  const open = at[0] + 1;
  if (lines[open]?.trim() !== '```sh') {
    console.error(`${file}:${open + 1}: procedure ${name}: the marker is not followed by a \`\`\`sh block`);
    process.exit(1);
  }
  const close = lines.findIndex((line, i) => i > open && line.trim() === '```');
  if (close < 0) {
    console.error(`${file}: procedure ${name}: its block is not closed`);
    process.exit(1);
  }
  process.stdout.write(`${lines.slice(open + 1, close).join('\n')}\n`);
  process.exit(0);
}
console.error(`procedure ${name}: no "${marker}" line in ${files.join(', ')}`);
process.exit(1);
