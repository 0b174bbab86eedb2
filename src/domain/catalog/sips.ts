// SIP submissions (docs/http-api.md): checked, recorded, and moved to `sips/<id>.zip` as the write transaction's
// last step, so no row outlives its file nor file its row.
import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { writeTransaction } from '../../db/write-transaction.js';
import { check, refusal, unknownFields, v } from '../../validation.js';
import { errorCode } from '../../errors.js';
import type { Ctx } from '../context.js';
import { isStringArray, parseJsonAs } from './json-values.js';
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

/** Wide enough for archival signatures (`CH-001/2024.3`), safe in URLs, file names and logs. */
export const IDENTIFIER_RE = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,254}$/;

/** Identifiers may be used as paths: no segment may walk (`.`, `..`) or collapse (`a//b`, `a/`). */
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

/** The text fields, each read on its own: a bad identifier does not hide a bad title from the 422. */
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
  // A JSON array of names, or names separated by commas (SIP imports create keywords: docs/http-api.md).
  keywords: v.pipe(
    v.optional(v.string(), ''),
    v.transform((raw) => (raw.trimStart().startsWith('[') ? parseJsonAs(raw, isStringArray) : raw.split(','))),
    v.custom<string[]>(isStringArray, 'must be a JSON array of strings or a comma-separated list'),
    v.transform((names) => names.map((n) => n.trim()).filter((n) => n !== '')),
  ),
};

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

  // A text field through its schema: its value, or its message recorded under its name.
  const read = <K extends keyof typeof SIP_FIELDS>(name: K) => {
    const r = check(SIP_FIELDS[name], upload.fields[name]);
    if (r.ok) return r.value;
    problems.set(name, Object.values(r.errors)[0] ?? 'is invalid');
    return undefined;
  };
  const rawIdentifier = read('identifier');
  const identifier = problems.has('identifier') ? '' : (rawIdentifier ?? newIdentifier());
  let title = read('title') ?? null;
  let keywords = read('keywords') ?? [];

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
 * rename(2), or copy and remove across file systems; flushed either way (the copy, and the
 * directory's new entry), so an acknowledged upload survives a crash of the machine.
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
 * Records a SIP submission: an object `ingesting`, a submission `received` and its file. Answers
 * the receipt and the object's identifier (the HTTP API's way to the object, read nowhere else).
 */
export async function importSip(ctx: Ctx, dataDir: string, upload: SipUpload, tokenId: number | null) {
  const { file, identifier, title, keywords } = await parseSipUpload(upload);
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
      return { receipt: { id, status: 'received' as const, object_id: object.id }, identifier: object.identifier };
    });
  } catch (err) {
    if (state.moved !== null) await rm(state.moved, { force: true });
    throw err;
  }
}
