// Writing XML text safely. Catalogue fields are free text typed by people and tools, so every
// value is escaped and anything XML 1.0 cannot carry is dropped: one stray control character
// would otherwise make the whole export unparseable for every consumer.

// XML 1.0 §2.2 Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF].
// With the `u` flag a lone surrogate is one code point outside these ranges, so it is removed too.
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** The text without the characters XML 1.0 does not allow. */
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

/** Escapes character data (element content). */
export function escapeText(text: string): string {
  return stripInvalidXmlChars(text).replace(/[&<>"'\r]/g, (c) => ENTITIES[c] ?? c);
}

/** Escapes an attribute value (for use between double quotes). */
export function escapeAttr(text: string): string {
  return stripInvalidXmlChars(text).replace(/[&<>"'\t\n\r]/g, (c) => ATTR_ENTITIES[c] ?? c);
}

export type Attrs = ReadonlyArray<readonly [name: string, value: string | null | undefined]>;

/** An element holding either text or child elements (the exports never need mixed content). */
export interface XmlNode {
  name: string;
  attrs: Attrs;
  text?: string | null;
  children?: readonly XmlNode[];
}

/** An element with text content; names are trusted constants, attribute values and text are escaped. */
export const el = (name: string, attrs: Attrs, text?: string | null): XmlNode => ({ name, attrs, text });
/** An element with child elements. */
export const parent = (name: string, attrs: Attrs, children: readonly XmlNode[]): XmlNode => ({ name, attrs, children });

function attrText(attrs: Attrs): string {
  let out = '';
  for (const [name, value] of attrs) if (value !== null && value !== undefined) out += ` ${name}="${escapeAttr(value)}"`;
  return out;
}

/** Serialises a node, indented by two spaces per level so a person can read the export. */
export function serialize(node: XmlNode, depth = 0): string {
  const pad = '  '.repeat(depth);
  const open = `${node.name}${attrText(node.attrs)}`;
  if (node.children && node.children.length > 0) {
    const inner = node.children.map((c) => serialize(c, depth + 1)).join('\n');
    return `${pad}<${open}>\n${inner}\n${pad}</${node.name}>`;
  }
  const text = node.text ? escapeText(node.text) : '';
  return text ? `${pad}<${open}>${text}</${node.name}>` : `${pad}<${open}/>`;
}
