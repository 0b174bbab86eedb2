import { invalid } from '../../errors.js';

export const LEGACY_NAME = 'Legacy API token';
export const MAX_NAME_LENGTH = 100;

/** A token's name says what it is for; it is shown in tables, so no control characters. */
export function checkTokenName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0) throw invalid('a token needs a name that says what it is for (--name)');
  if (trimmed.length > MAX_NAME_LENGTH) throw invalid(`a token name is at most ${MAX_NAME_LENGTH} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) throw invalid('a token name may not contain control characters');
  return trimmed;
}
