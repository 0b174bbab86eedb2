// SIP submissions (SPEC §4.4). The upload is already on disk (streamed to a temporary file by
// the HTTP layer, never held in memory); here it is checked, recorded and moved into place.
// Fields: `file` (exactly one ZIP), optional `identifier` (default `sip-<uuid>`), `title`, and
// `keywords` (SPEC: keywords are created by SIP imports); any other field is refused.
//
// Ordering, so that neither a row without its file nor a file without its row survives:
// 1. validate everything that needs no database (fields, ZIP signature);
// 2. in one write transaction: create the object and the submission, then move the file to its
//    final name `sips/<id>.zip` as the last step, so a failed move rolls the rows back;
// 3. if the transaction fails after the move (the commit itself), remove the moved file.
// The temporary file left behind on any failure is removed by the HTTP layer.
import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { writeTransaction } from '../../db/write-transaction.js';
import { check, refusal, unknownFields, v } from '../../validation.js';
import { errorCode } from '../../errors.js';
import type { Ctx } from '../context.js';
import { isStringArray } from './json-values.js';
import { checkObjectCreate, createObject } from './objects.js';
import { insertedId } from '../../db/row-id.js';

/** A file part already written to disk (structurally the HTTP layer's UploadedFile). */
export interface StagedFile {
  field: string;
  path: string;
  size: number;
  sha256: string;
}

export interface SipUpload {
  fields: Record<string, string>;
  files: readonly StagedFile[];
  /** Every part name in order, repeats included (to refuse a field given twice). */
  names?: readonly string[];
}

export interface SipReceipt {
  id: number;
  status: 'received';
  object_id: number;
}

/**
 * Identifiers: 1-255 characters, letters, digits and `. _ - : /`, starting with a letter or a
 * digit. Wide enough for archival signatures (`CH-001/2024.3`), narrow enough to be safe in
 * URLs, file names of consumers and log lines (no spaces, quotes or control characters).
 */
export const IDENTIFIER_RE = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,254}$/;

/**
 * Identifiers may look like paths (`CH-001/2024.3`) and consumers may use them as such, so a
 * segment that walks the tree (`.`, `..`) or collapses (`a//b`, a trailing `/`) is refused.
 */
export function hasUnsafeSegment(identifier: string): boolean {
  return identifier.split('/').some((segment) => segment === '' || segment === '.' || segment === '..');
}

const KNOWN_FIELDS = new Set(['file', 'identifier', 'title', 'keywords']);

// Local file header, or end of central directory for an empty archive (APPNOTE 4.3.7, 4.3.16).
const ZIP_SIGNATURES = [Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from([0x50, 0x4b, 0x05, 0x06])];

/** Whether the file starts with a ZIP signature. Reads 4 bytes, not the file. */
export async function hasZipSignature(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await handle.read(head, 0, 4, 0);
    return bytesRead === 4 && ZIP_SIGNATURES.some((sig) => sig.equals(head));
  } finally {
    await handle.close();
  }
}

const KEYWORDS_MESSAGE = 'must be a JSON array of strings or a comma-separated list';

function jsonOrNull(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/**
 * The text fields of an upload (all optional); the file part is checked on its own. Each is
 * read on its own, so that a bad identifier does not hide a bad title from the same 422.
 */
const SIP_FIELDS = {
  // "" (an empty form field) asks for a generated identifier, as an absent one does.
  identifier: v.pipe(
    v.optional(v.string()),
    v.transform((raw) => raw || undefined),
    v.optional(
      v.pipe(
        v.string(),
        v.regex(IDENTIFIER_RE, '1-255 letters, digits, ".", "_", "-", ":" or "/", starting with a letter or digit'),
        v.check((id) => !hasUnsafeSegment(id), 'no empty, "." or ".." segment between "/" and no trailing "/"'),
      ),
    ),
  ),
  title: v.pipe(
    v.optional(v.string()),
    v.transform((raw) => (raw === undefined || raw.trim() === '' ? null : raw)),
  ),
  // A JSON array of names, or names separated by commas; blank entries are ignored.
  keywords: v.pipe(
    v.optional(v.string(), ''),
    v.transform((raw): unknown => (raw.trimStart().startsWith('[') ? jsonOrNull(raw) : raw.split(','))),
    v.custom<string[]>(isStringArray, KEYWORDS_MESSAGE),
    v.transform((names) => names.map((n) => n.trim()).filter((n) => n !== '')),
  ),
};

/** One text field through its schema: the value, or its message recorded under its name. */
function readField<K extends keyof typeof SIP_FIELDS>(
  upload: SipUpload,
  name: K,
  problems: Map<string, string>,
): v.InferOutput<(typeof SIP_FIELDS)[K]> | undefined {
  const r = check(SIP_FIELDS[name], upload.fields[name]);
  if (r.ok) return r.value;
  problems.set(name, Object.values(r.errors)[0] ?? 'is invalid');
  return undefined;
}

/** Checks the multipart fields and the file; throws `invalid` (422) naming every bad field. */
export async function parseSipUpload(upload: SipUpload, newIdentifier = () => `sip-${randomUUID()}`) {
  const problems = new Map<string, string>();
  const names = upload.names ?? [...Object.keys(upload.fields), ...upload.files.map((f) => f.field)];
  // As every body's refusal (the parts are few: body.ts bounds them).
  for (const name of unknownFields(names, (n) => KNOWN_FIELDS.has(n))) problems.set(name, 'unknown field');
  const seen = new Set<string>();
  for (const name of names) {
    if (KNOWN_FIELDS.has(name) && seen.has(name)) problems.set(name, 'given more than once');
    seen.add(name);
  }

  const files = upload.files.filter((f) => f.field === 'file');
  if (Object.hasOwn(upload.fields, 'file')) problems.set('file', 'must be a file part, not a text field');
  else if (files.length === 0) problems.set('file', 'a ZIP file in the field "file" is required');
  else if (files.length > 1) problems.set('file', 'exactly one file is accepted');

  const rawIdentifier = readField(upload, 'identifier', problems);
  const identifier = problems.has('identifier') ? '' : (rawIdentifier ?? newIdentifier());
  let title = readField(upload, 'title', problems) ?? null;
  let keywords = readField(upload, 'keywords', problems) ?? [];

  // Title and keywords obey the same rules as objects loaded any other way.
  const checked = checkObjectCreate({ identifier: identifier || 'x', title, status: 'ingesting', keywords });
  if (checked.ok) {
    title = checked.values.title ?? null;
    keywords = checked.values.keywords ?? [];
  } else {
    for (const [key, message] of Object.entries(checked.errors)) if (!problems.has(key)) problems.set(key, message);
  }

  const file = files[0];
  // The signature is checked even when other fields are bad, so one 422 lists every problem.
  if (file && files.length === 1 && !problems.has('file') && !(await hasZipSignature(file.path))) {
    problems.set('file', 'not a ZIP archive');
  }
  if (problems.size > 0 || !file) throw refusal('SIP submission', Object.fromEntries(problems));
  return { file, identifier, title, keywords };
}

/** Flushes a file or a directory (its entries: a rename into it) to the disk. */
async function flush(file: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * rename(2), or copy and remove when the temporary directory is on another file system; either
 * way flushed (the copy, and the directory's new entry), so an acknowledged upload survives a
 * crash of the machine.
 */
async function moveFile(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (err) {
    if (errorCode(err) !== 'EXDEV') throw err;
    try {
      await copyFile(from, to);
      await flush(to);
    } catch (copyErr) {
      await rm(to, { force: true });
      throw copyErr;
    }
    await rm(from, { force: true });
  }
  await flush(path.dirname(to));
}

/** A staged file is whole only once its writer recorded the SHA-256 of every byte (http/body.ts). */
const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * Records a SIP submission: an object in status `ingesting`, a submission in status `received`,
 * and the file at `<dataDir>/sips/<submission id>.zip`.
 */
export async function importSip(
  ctx: Ctx,
  dataDir: string,
  upload: SipUpload,
  tokenId: number | null,
): Promise<SipReceipt> {
  const { file, identifier, title, keywords } = await parseSipUpload(upload);
  // A file without its hash was not stored completely: never recorded as received.
  if (!SHA256_HEX.test(file.sha256)) throw new Error('the uploaded file was not stored completely');
  const at = ctx.clock.now();
  const now = at.toISOString();
  // Written inside the transaction callback, read after it fails.
  const state: { moved: string | null } = { moved: null };
  try {
    return await writeTransaction(ctx.db, async (trx) => {
      const object = await createObject(trx, { identifier, title, status: 'ingesting', keywords }, at);
      const rows: unknown = await trx('sip_submissions')
        .insert({
          object_id: object.id,
          status: 'received',
          file: 'sips/pending', // the id is known only after the insert
          size: file.size,
          sha256: file.sha256,
          reason: null,
          token_id: tokenId,
          created_at: now,
          updated_at: now,
        })
        .returning('id');
      const id = insertedId(rows);
      const relative = `sips/${id}.zip`;
      await trx('sip_submissions').where('id', id).update({ file: relative });
      const target = path.join(dataDir, relative);
      await mkdir(path.dirname(target), { recursive: true });
      await moveFile(file.path, target);
      state.moved = target;
      return { id, status: 'received' as const, object_id: object.id };
    });
  } catch (err) {
    if (state.moved !== null) await rm(state.moved, { force: true });
    throw err;
  }
}
