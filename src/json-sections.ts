// A JSON object of arrays (`{"actors": [...], "places": [...]}`), read from a stream one array
// entry at a time by @streamparser/json, so a file of any size is held an entry at a time.
import { JSONParser, TokenType } from '@streamparser/json';

export type JsonSectionEvent =
  /** A key of the outer object, and what its value is (an array's entries follow). */
  | { type: 'section'; name: string; holds: 'array' | 'null' | 'other' }
  | { type: 'entry'; section: string; index: number; value: unknown };

/** The input is not JSON (the message names the character where it went wrong), or too large a value. */
export class JsonSyntaxError extends Error {}

/** The input is JSON, but not an object. */
export class JsonNotObjectError extends Error {}

/**
 * The outer object's keys and its arrays' entries, in batches (what one chunk of the input
 * completes). No entry may take more than `maxValue` bytes. Throws JsonSyntaxError where the input
 * stops being JSON, JsonNotObjectError when it does not start as an object.
 */
export async function* jsonSections(
  chunks: AsyncIterable<string | Buffer>,
  maxValue: number,
): AsyncGenerator<JsonSectionEvent[]> {
  // Only entries are built as values: a section in `paths` would keep its entries until its end.
  const parser = new JSONParser({ paths: ['$.*.*'], keepStack: false });
  let out: JsonSectionEvent[] = [];
  let read = 0;
  let sinceEntry = 0;
  let started = false;
  let depth = 0;
  let key = '';
  let afterColon = false;
  // A section's kind is its value's first token, read at the outer object's depth.
  parser.onToken = ({ token, value }) => {
    if (depth === 1) {
      if (afterColon) {
        const holds = token === TokenType.LEFT_BRACKET ? 'array' : token === TokenType.NULL ? 'null' : 'other';
        out.push({ type: 'section', name: key, holds });
        afterColon = false;
      } else if (token === TokenType.STRING) key = value as string;
      else if (token === TokenType.COLON) afterColon = true;
    }
    if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) depth++;
    else if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) depth--;
  };
  parser.onValue = ({ value, key: index, parent, stack }) => {
    // The members of a section that is an object are not looked at.
    if (!Array.isArray(parent)) return;
    out.push({ type: 'entry', section: String(stack[1]?.key), index: index as number, value });
    sinceEntry = 0;
  };
  /** Where the input stopped being JSON: the tokenizer's position, else the end of the chunk read. */
  const fail = (err: unknown, end = read): never => {
    const message = err instanceof Error ? err.message : String(err);
    const at = /absolute position "(\d+)"/.exec(message)?.[1];
    const where = `at character ${at === undefined ? end : Number(at) + 1}`;
    throw new JsonSyntaxError(`${message.replace(/ at chunk position .*$/, '')} ${where}`);
  };
  for await (const chunk of chunks) {
    const text = typeof chunk === 'string' ? chunk : chunk.toString('latin1');
    if (!started) {
      const first = text.trimStart()[0];
      if (first === undefined) continue;
      if (first !== '{') throw new JsonNotObjectError('not an object');
      started = true;
    }
    try {
      parser.write(chunk);
    } catch (err) {
      fail(err, read + chunk.length);
    }
    read += chunk.length;
    sinceEntry += chunk.length;
    if (sinceEntry > maxValue) fail(`a value longer than ${maxValue} bytes`);
    if (out.length > 0) yield out;
    out = [];
  }
  if (!started) throw new JsonSyntaxError('no JSON value at character 1');
  if (!parser.isEnded) fail('unexpected end of the input');
  if (out.length > 0) yield out;
}
