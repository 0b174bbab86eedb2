// The pieces every operation of the description is made of: references to the shared answers
// and headers, media types, query parameters from the valibot schemas the handlers parse with.
import type { v } from '../../validation.js';
import { jsonSchemaOf, type Schema } from './json-schema.js';

export type Answers = Record<string, Schema>;
export interface Described {
  summary: string;
  /** Said after the access rule. */
  description?: string;
  parameters?: Schema[];
  requestBody?: Schema;
  responses: Answers;
}

export const response = (name: string): Schema => ({ $ref: `#/components/responses/${name}` });
export const header = (name: string): Schema => ({ $ref: `#/components/headers/${name}` });
export const json = (schema: Schema): Schema => ({ 'application/json': { schema } });

/** The query parameters of an object schema of parameters (each read by list/params.ts). */
export function queryParameters(schema: v.GenericSchema, descriptions: Record<string, string> = {}): Schema[] {
  const object = jsonSchemaOf(schema);
  const required = (object.required as string[] | undefined) ?? [];
  return Object.entries((object.properties ?? {}) as Record<string, Schema>).map(([name, s]) => ({
    name,
    in: 'query',
    required: required.includes(name),
    schema: s,
    ...(descriptions[name] ? { description: descriptions[name] } : {}),
  }));
}

export const ok = (description: string, content: Schema, headers?: Schema): Schema => ({
  description,
  content,
  ...(headers ? { headers } : {}),
});

/** A JSON body; forms (urlencoded, multipart) carry the same fields as strings. */
export const body = (schema: Schema, required = true): Schema => ({
  required,
  content: {
    'application/json': { schema },
    'application/x-www-form-urlencoded': { schema: { type: 'object' } },
  },
});
