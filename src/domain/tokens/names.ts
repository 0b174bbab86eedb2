import { invalid } from '../../errors.js';
import { escapeUnsafe, findUnsafe } from '../../unsafe-text.js';

export const LEGACY_NAME = 'Legacy API token';
const MAX_NAME_LENGTH = 100;

/** A token's name says what it is for; it is shown in tables, so nothing a terminal interprets. */
export function checkTokenName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0) throw invalid('a token needs a name that says what it is for (--name)');
  if (trimmed.length > MAX_NAME_LENGTH) throw invalid(`a token name is at most ${MAX_NAME_LENGTH} characters`);
  const bad = findUnsafe(trimmed);
  if (bad) {
    throw invalid(
      'a token name may not contain control characters or invisible formatting characters ' +
        `(found ${bad}): "${escapeUnsafe(trimmed)}"`,
    );
  }
  return trimmed;
}
