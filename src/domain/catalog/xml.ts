// Writing XML text safely. Catalogue fields are free text typed by people and tools, so every
// value is escaped and anything XML 1.0 cannot carry is dropped: one stray control character
// would otherwise make the whole export unparseable for every consumer.

// XML 1.0 §2.2 Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF].
// With the `u` flag a lone surrogate is one code point outside these ranges, so it is removed too.
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function stripInvalidXmlChars(text: string): string {
  return text.replace(NOT_XML_CHAR, '');
}

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  // A parser turns a literal CR into LF (§2.11) and tab/LF/CR in attributes into spaces
  // (§3.3.3); character references keep them as they were stored.
  '\r': '&#13;',
};
const ATTR_ENTITIES: Record<string, string> = { ...ENTITIES, '\t': '&#9;', '\n': '&#10;' };

// C1 controls (legal but discouraged in XML 1.0) as references, which parse the same everywhere.
const C1 = /[\u0080-\u009F]/g;
const charRef = (c: string): string => `&#x${(c.codePointAt(0) ?? 0).toString(16).toUpperCase()};`;

// Most catalogue values need no escaping at all: one test instead of three replacements.
const NEEDS_WORK = /[^\n\u0020-\u0021\u0023-\u0025\u0028-\u003B\u003D\u003F-\u007E\u00A0-\uD7FF\uE000-\uFFFD]/;

/** Escapes character data (element content). */
export function escapeText(text: string): string {
  if (!NEEDS_WORK.test(text)) return text;
  return stripInvalidXmlChars(text)
    .replace(/[&<>"'\r]/g, (c) => ENTITIES[c] ?? c)
    .replace(C1, charRef);
}

/** Escapes an attribute value (for use between double quotes). */
export function escapeAttr(text: string): string {
  if (!NEEDS_WORK.test(text) && !text.includes('\n')) return text;
  return stripInvalidXmlChars(text)
    .replace(/[&<>"'\t\n\r]/g, (c) => ATTR_ENTITIES[c] ?? c)
    .replace(C1, charRef);
}

export type Attrs = ReadonlyArray<readonly [name: string, value: string | null | undefined]>;

/** An element holding either text or child elements (the exports never need mixed content). */
export interface XmlNode {
  name: string;
  attrs: Attrs;
  text?: string | null;
  children?: readonly XmlNode[];
  /** Already serialised (see serialized): written as it is. */
  raw?: string;
}

/** An element with text content; names are trusted constants, attribute values and text are escaped. */
export const el = (name: string, attrs: Attrs, text?: string | null): XmlNode => ({ name, attrs, text });
/** An element with child elements. */
export function parent(name: string, attrs: Attrs, children: readonly XmlNode[]): XmlNode {
  return { name, attrs, children };
}

function attrText(attrs: Attrs): string {
  let out = '';
  for (const [name, value] of attrs)
    if (value !== null && value !== undefined) out += ` ${name}="${escapeAttr(value)}"`;
  return out;
}

/** Serialises a node, indented by two spaces per level so a person can read the export. */
export function serialize(node: XmlNode, depth = 0): string {
  // One list of lines joined once: exports of tens of thousands of entries are built per change.
  const lines: string[] = [];
  write(node, depth, lines);
  return lines.join('\n');
}

/** Text serialised already, at its final depth: a list's entries as strings, not trees of objects. */
export const serialized = (text: string): XmlNode => ({ name: '', attrs: [], raw: text });

function write(node: XmlNode, depth: number, lines: string[]): void {
  if (node.raw !== undefined) {
    lines.push(node.raw);
    return;
  }
  const pad = '  '.repeat(depth);
  const open = `${node.name}${attrText(node.attrs)}`;
  if (node.children && node.children.length > 0) {
    lines.push(`${pad}<${open}>`);
    for (const c of node.children) write(c, depth + 1, lines);
    lines.push(`${pad}</${node.name}>`);
    return;
  }
  const text = node.text ? escapeText(node.text) : '';
  lines.push(text ? `${pad}<${open}>${text}</${node.name}>` : `${pad}<${open}/>`);
}
