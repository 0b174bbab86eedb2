// A folder of published JSON Schemas loaded into ajv as they are ($refs resolved between them by
// their $ids), and the spec's own examples replayed through it: a validator is trusted with the
// daemon's answers only once it agrees with every valid/invalid verdict of the examples.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export interface SchemaSet {
  /** The validation errors of `data` against schema `name` (file name without .json), at `pointer`. */
  problems(name: string, data: unknown, pointer?: string): string[];
  /**
   * Every example under `examples/<folder>/{valid,invalid}/*.json`, judged by the schema each
   * folder names: the disagreements with the folder's verdict, and how many were judged.
   */
  replay(examples: string, schemas: Record<string, [string, string?]>): { disagreements: string[]; judged: number };
}

export function loadSchemas(dir: string): SchemaSet {
  // strict: false: the published files use `definitions` inside a property and a `$schema` URI
  // ajv does not know; strictness is about how schemas are written, not how data is checked.
  const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
  const ids: Record<string, string> = {};
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    const schema = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Record<string, unknown>;
    delete schema.$schema; // "http://json-schema.org/schema#": the latest draft, which ajv's default is
    ajv.addSchema(schema);
    ids[file.replace(/\.json$/, '')] = String(schema.$id);
  }
  const validator = (name: string, pointer: string): ValidateFunction => {
    const id = ids[name];
    const v = id === undefined ? undefined : ajv.getSchema(`${id.replace(/#$/, '')}${pointer ? `#${pointer}` : ''}`);
    if (!v) throw new Error(`no schema ${name}${pointer}`);
    return v;
  };
  const problems = (name: string, data: unknown, pointer = ''): string[] => {
    const v = validator(name, pointer);
    return v(data)
      ? []
      : (v.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  };
  return {
    problems,
    replay(examples, schemas) {
      const verdicts = Object.entries(schemas).flatMap(([folder, [schema, pointer]]) =>
        (['valid', 'invalid'] as const).flatMap((verdict) =>
          jsonFilesIn(path.join(examples, folder, verdict)).map((file) => {
            const found = problems(schema, JSON.parse(readFileSync(file, 'utf8')) as unknown, pointer);
            const agrees = (found.length === 0) === (verdict === 'valid');
            return agrees ? null : `${path.relative(examples, file)}: ${found.join('; ') || 'valid'}`;
          }),
        ),
      );
      return { disagreements: verdicts.filter((v) => v !== null), judged: verdicts.length };
    },
  };
}

/** The JSON files directly in `dir` (none when there is no such folder). */
const jsonFilesIn = (dir: string): string[] =>
  existsSync(dir) ? readdirSync(dir).flatMap((f) => (f.endsWith('.json') ? [path.join(dir, f)] : [])) : [];
