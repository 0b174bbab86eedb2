// The CSV of `token import-legacy` read on its own (parseLegacyCsv in
// src/domain/tokens/legacy-import.ts): the lines it gives, and the reasons it gives for bad
// lines and bad files, each naming a line and never a token.
import { describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors.js';
import { parseLegacyCsv } from '../../src/domain/tokens/legacy-import.js';
import { legacyValue } from '../helpers/cli.js';

const LEGACY_NAME = 'Legacy API token';
const TOKEN_RULE = 'the token is not 60 characters of A-Z, a-z, 0-9';

/** The line parseLegacyCsv gives for `value` of `username`. */
const lineOf = (line: number, username: string, value: string, name = LEGACY_NAME) => ({
  line,
  username,
  selector: value.slice(0, 8),
  secret: value.slice(8),
  name,
});

/** The message of the `invalid` error parsing `text` throws. */
function refusal(text: string): string {
  try {
    parseLegacyCsv(text);
  } catch (err) {
    expect(isAppError(err) && err.kind).toBe('invalid');
    return (err as Error).message;
  }
  throw new Error('expected a refusal');
}

function expectNoValue(text: string, values: string[]): void {
  for (const v of values) {
    expect(text).not.toContain(v.slice(0, 20));
    expect(text).not.toContain(v.slice(20, 40));
    expect(text).not.toContain(v.slice(40));
  }
}

describe('a legacy CSV file', () => {
  it('gives one line per record: the id is the first 8 characters, the name "Legacy API token" unless given', () => {
    const [a, b, c, d] = [legacyValue(), legacyValue(), legacyValue(), legacyValue()];
    // A byte order mark, header names in any case, spaces around fields and blank lines are fine.
    expect(parseLegacyCsv(`\ufeffUserName , TOKEN\n bob , ${a} \n\ncarol,${b}\n`)).toEqual({
      lines: [lineOf(2, 'bob', a), lineOf(4, 'carol', b)],
      errors: [],
    });
    expect(parseLegacyCsv(`username,token,name\nbob,${c},"Nightly, ingest"\ncarol,${d},\n`)).toEqual({
      lines: [lineOf(2, 'bob', c, 'Nightly, ingest'), lineOf(3, 'carol', d)],
      errors: [],
    });
  });

  it('reports every bad line with its reason; a line with a bad token for that alone', () => {
    const [a, b, c, d] = [legacyValue(), legacyValue(), legacyValue(), legacyValue()];
    const long = 'x'.repeat(101);
    const text = [
      'username,token,name',
      `,${a},`, // 2: no username
      `bob,${b.slice(0, 59)},short`, // 3: 59 characters
      `bob,${c},${long}`, // 4: a name too long
      `bob,${d.slice(0, 59)}!,${long}`, // 5: a bad token and a name too long
      `,${d},${long}`, // 6: no username and a name too long
    ].join('\n');
    const { lines, errors } = parseLegacyCsv(text);
    expect(errors).toEqual([
      'line 2: the username is empty',
      `line 3: ${TOKEN_RULE}`,
      'line 4: a token name is at most 100 characters',
      `line 5: ${TOKEN_RULE}`,
      'line 6: the username is empty',
      'line 6: a token name is at most 100 characters',
    ]);
    // Lines with a readable token stay (their ids count for repeats), with what could be read.
    expect(lines).toEqual([lineOf(2, '', a), lineOf(4, 'bob', c), lineOf(6, '', d)]);
    expectNoValue(errors.join('\n'), [a, b, c, d]);
  });

  it('refuses a line whose first 8 characters repeat an earlier line, naming both lines and the id', () => {
    const a = legacyValue();
    const again = a.slice(0, 8) + legacyValue().slice(8);
    const other = legacyValue();
    // A line with an unreadable token has no id: it repeats nothing, and nothing repeats it.
    const unreadable = `${a.slice(0, 8)}!`;
    const { lines, errors } = parseLegacyCsv(
      `username,token\nbob,${unreadable}\nbob,${a}\ncarol,${other}\ndora,${again}\n`,
    );
    expect(errors).toEqual([
      `line 2: ${TOKEN_RULE}`,
      `line 5: the token's first 8 characters (its id ${a.slice(0, 8)}) repeat line 3`,
    ]);
    expect(lines).toEqual([lineOf(3, 'bob', a), lineOf(4, 'carol', other)]);
  });

  it('refuses malformed CSV, saying on which line and what kind, quoting nothing of it', () => {
    const a = legacyValue();
    const quoted = refusal(`username,token\nbob,${a.slice(0, 30)}"${a.slice(30)}\n`);
    expect(quoted).toBe('line 2: malformed CSV (INVALID_OPENING_QUOTE); nothing was imported');
    expect(refusal(`username,token\ncarol,${a}\nbob,"${a}\n`)).toBe(
      'line 3: malformed CSV (CSV_QUOTE_NOT_CLOSED); nothing was imported',
    );
    expect(refusal(`username,token\nbob,${a},extra\n`)).toBe(
      'line 2: malformed CSV (CSV_RECORD_INCONSISTENT_COLUMNS); nothing was imported',
    );
  });

  it('refuses a file whose first line is not the header, quoting only names that read as words', () => {
    const a = legacyValue();
    expect(refusal(`usrname,token\nbob,${a}\n`)).toBe(
      'line 1 must be the header username,token or username,token,name (unknown column(s) "usrname"); nothing was imported',
    );
    const noHeader = refusal(`bob,${a}\n`);
    expect(noHeader).toBe(
      'line 1 must be the header username,token or username,token,name (unknown column(s) "bob"); nothing was imported',
    );
    expect(refusal(`username,token,name,notes,${a}\nbob,${a},x,y,z\n`)).toBe(
      'line 1: unknown column(s) "notes", column 5; expected username,token[,name]',
    );
  });
});
