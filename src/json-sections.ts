// A JSON object of arrays (`{"actors": [...], "places": [...]}`), read from a stream one array
// entry at a time, so a file of any size is held one entry at a time (`catalog load`). Only the
// outer object and its arrays are read here: each entry is cut out whole (tracking strings and
// brackets) and given to JSON.parse, which checks it and builds the value. The streaming JSON
// parsers tried for this (stream-json, @streamparser/json) took 1.6 to 4 times as long as
// JSON.parse on a million-entry file; this takes about as long.
import { StringDecoder } from 'node:string_decoder';

export type JsonSectionEvent =
  /** A key of the outer object, and what its value is (an array's entries follow). */
  | { type: 'section'; name: string; holds: 'array' | 'null' | 'other' }
  | { type: 'entry'; section: string; index: number; value: unknown };

/** The input is not JSON (the message names the character where it went wrong), or too large a value. */
export class JsonSyntaxError extends Error {}

/** The input is JSON, but not an object. */
export class JsonNotObjectError extends Error {}

const WS = new Set([0x20, 0x0a, 0x0d, 0x09]);
const OPEN = new Set([0x7b, 0x5b]); // { [
const CLOSE = new Set([0x7d, 0x5d]); // } ]
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

class Reader {
  private buf = '';
  private pos = 0;
  /** Characters dropped from the front of buf: positions in messages count from the input's start. */
  private dropped = 0;
  private ended = false;
  private readonly decoder = new StringDecoder('utf8');

  constructor(
    private readonly chunks: AsyncIterator<string | Buffer>,
    private readonly maxValue: number,
  ) {}

  fail(what: string, at = this.pos): never {
    throw new JsonSyntaxError(`${what} at character ${this.dropped + at + 1}`);
  }

  /** Appends the next chunk (dropping what has been read); false at the end of the input. */
  private async more(): Promise<boolean> {
    if (this.ended) return false;
    const next = await this.chunks.next();
    this.dropped += this.pos;
    this.buf = this.buf.slice(this.pos);
    this.pos = 0;
    if (next.done) {
      this.ended = true;
      this.buf += this.decoder.end();
      return false;
    }
    this.buf += typeof next.value === 'string' ? next.value : this.decoder.write(next.value);
    return true;
  }

  /** The next character after white space, not consumed; undefined at the end. */
  async peek(): Promise<string | undefined> {
    for (;;) {
      while (this.pos < this.buf.length && WS.has(this.buf.charCodeAt(this.pos))) this.pos++;
      if (this.pos < this.buf.length) return this.buf[this.pos];
      if (!(await this.more()) && this.pos >= this.buf.length) return undefined;
    }
  }

  /** peek() from what is read already; null when more input is needed to tell. */
  peekNow(): string | null {
    while (this.pos < this.buf.length && WS.has(this.buf.charCodeAt(this.pos))) this.pos++;
    return this.pos < this.buf.length ? (this.buf[this.pos] as string) : null;
  }

  /** Consumes the character peekNow() or peek() returned. */
  skip(): void {
    this.pos++;
  }

  /**
   * value() from what is read already: null when the value (or, for a number or a literal, what
   * follows it) is not all there yet. The common case, without a promise per value.
   */
  valueNow(): string | null {
    const first = this.peekNow();
    if (first === null) return null;
    const buf = this.buf;
    const scalar = !OPEN.has(first.charCodeAt(0)) && first.charCodeAt(0) !== QUOTE;
    let depth = 0;
    let inString = false;
    let escaped = false;
    for (let i = this.pos; i < buf.length; i++) {
      const c = buf.charCodeAt(i);
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) {
          inString = false;
          if (depth === 0) return this.take(i + 1);
        }
      } else if (scalar) {
        if (WS.has(c) || CLOSE.has(c) || c === 0x2c) return this.take(i);
      } else if (c === QUOTE) inString = true;
      else if (OPEN.has(c)) depth++;
      else if (CLOSE.has(c) && --depth === 0) return this.take(i + 1);
    }
    return null;
  }

  async expect(char: string, what: string): Promise<void> {
    const c = await this.peek();
    if (c !== char) this.fail(c === undefined ? `unexpected end, expected ${what}` : `expected ${what}`);
    this.pos++;
  }

  /**
   * The text of the JSON value that starts at the next character, consumed (not yet checked). A
   * value cut by the end of what is read is scanned again once more is read: at most
   * maxValue / chunk size times.
   */
  async value(): Promise<string> {
    for (;;) {
      const text = this.valueNow();
      if (text !== null) return text;
      if (this.buf.length - this.pos > this.maxValue) this.fail(`a value longer than ${this.maxValue} characters`);
      if (!(await this.more())) {
        const rest = this.buf.slice(this.pos).trimEnd();
        // A number or literal may end the input; anything else cut short is not JSON.
        if (rest === '') this.fail('unexpected end, expected a value');
        if (OPEN.has(rest.charCodeAt(0)) || rest.charCodeAt(0) === QUOTE) this.fail('unexpected end inside a value');
        return this.take(this.pos + rest.length);
      }
    }
  }

  private take(end: number): string {
    const text = this.buf.slice(this.pos, end);
    this.pos = end;
    return text;
  }

  /** The value `text`, read at the position it ended. */
  parse(text: string): unknown {
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      // JSON.parse counts from the value's start; the message names where the value ends.
      this.fail(`${(err as Error).message.split('\n')[0] ?? 'invalid'}, in the value ending`);
    }
  }
}

/**
 * The outer object's keys and its arrays' entries, in the order of the input, in batches (what one
 * read of the input completes). A value other than an array is skipped (reported as `holds:
 * 'other'`); no value may be longer than `maxValue` characters. Throws JsonSyntaxError where the
 * input stops being JSON, JsonNotObjectError when it does not start as an object.
 */
export async function* jsonSections(
  chunks: AsyncIterable<string | Buffer>,
  maxValue: number,
): AsyncGenerator<JsonSectionEvent[]> {
  const r = new Reader(chunks[Symbol.asyncIterator](), maxValue);
  let out: JsonSectionEvent[] = [];
  const first = await r.peek();
  if (first === undefined) r.fail('no JSON value');
  if (first !== '{') throw new JsonNotObjectError('not an object');
  await r.expect('{', '"{"');
  if ((await r.peek()) === '}') await r.expect('}', '"}"');
  else {
    for (;;) {
      if ((await r.peek()) !== '"') r.fail('expected a key in double quotes');
      const name = r.parse(await r.value()) as string;
      await r.expect(':', '":"');
      if ((await r.peek()) === '[') {
        out.push({ type: 'section', name, holds: 'array' });
        await r.expect('[', '"["');
        if ((await r.peek()) === ']') await r.expect(']', '"]"');
        else {
          // The entries: from what is read already while it lasts; the batch so far is handed
          // on before waiting for more input.
          for (let index = 0; ; index++) {
            let text = r.valueNow();
            if (text === null) {
              if (out.length > 0) yield out;
              out = [];
              text = await r.value();
            }
            out.push({ type: 'entry', section: name, index, value: r.parse(text) });
            let next = r.peekNow();
            if (next === null) {
              if (out.length > 0) yield out;
              out = [];
              next = (await r.peek()) ?? null;
            }
            if (next === ',') r.skip();
            else if (next === ']') {
              r.skip();
              break;
            } else r.fail(next === null ? 'unexpected end, expected "," or "]"' : 'expected "," or "]"');
          }
        }
      } else {
        const value = r.parse(await r.value());
        out.push({ type: 'section', name, holds: value === null ? 'null' : 'other' });
      }
      if ((await r.peek()) === ',') await r.expect(',', '","');
      else {
        await r.expect('}', '"," or "}"');
        break;
      }
    }
  }
  if ((await r.peek()) !== undefined) r.fail('unexpected text after the JSON value');
  if (out.length > 0) yield out;
}
