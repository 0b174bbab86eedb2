// The preview service of Reconciliation 0.2: a small HTML page of one entity, which OpenRefine
// shows in an iframe when a user hovers a candidate. Every value is escaped, and the page is also
// well-formed XML (XHTML polyglot), so any parser reads it the same way; it carries no script.
import { notFound } from '../../../errors.js';
import type { Ctx } from '../../context.js';
import { descriptionOf, propertiesOf, rowIdOf, rowsByIds, serviceOf, type ReconcileKind } from './entities.js';
import type { Row } from './projection.js';
import { escapeAttr, escapeText } from '../xml.js';

/** Long free text is cut: the preview is a glance, not the record. */
const MAX_TEXT = 300;

/** Labels and values in a two-column grid with relative sizes: a wrapping label pushes its row down. */
const STYLE =
  'body{font:0.8125rem/1.4 sans-serif;margin:6px 8px;color:#222;overflow-wrap:anywhere}' +
  'h1{font-size:1.15em;margin:0 0 2px}p{margin:0 0 6px;color:#555}' +
  'dl{display:grid;grid-template-columns:minmax(0,9em) minmax(0,1fr);gap:2px 0.5em;margin:0}' +
  'dt{grid-column:1;color:#777}dd{grid-column:2;margin:0}';

const cut = (s: string) => ([...s].length > MAX_TEXT ? `${[...s].slice(0, MAX_TEXT).join('')}…` : s);

/** The preview page of one entity; 404 for an id that names none. */
export async function previewHtml(ctx: Ctx, kind: ReconcileKind, id: string): Promise<string> {
  const rowId = rowIdOf(id);
  const [row] = rowId === null ? [] : await rowsByIds(ctx, kind, [rowId]);
  if (!row) throw notFound(`no ${serviceOf(kind).what} with that id`);
  return renderPreview(kind, row);
}

export function renderPreview(kind: ReconcileKind, row: Row): string {
  const items: string[] = [];
  for (const property of propertiesOf(kind)) {
    if (property.inPreview === false) continue;
    const values = property.values(row).map((v) => ('str' in v ? v.str : String(v.float)));
    if (values.length === 0) continue;
    const shown = values.map((v) =>
      property.link
        ? `<a href="${escapeAttr(property.link(v))}" target="_blank" rel="noopener noreferrer">${escapeText(v)}</a>`
        : escapeText(cut(v)),
    );
    items.push(`<dt>${escapeText(property.name)}</dt><dd>${shown.join('; ')}</dd>`);
  }
  const description = descriptionOf(kind, row);
  return [
    '<!DOCTYPE html>',
    '<html xmlns="http://www.w3.org/1999/xhtml" lang="en">',
    `<head><meta charset="utf-8"/><title>${escapeText(row.name)}</title><style>${STYLE}</style></head>`,
    '<body>',
    `<h1>${escapeText(row.name)}</h1>`,
    ...(description ? [`<p>${escapeText(description)}</p>`] : []),
    ...(items.length > 0 ? [`<dl>${items.join('')}</dl>`] : []),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
