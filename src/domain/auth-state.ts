// The authorisation generation lives in src/db/access-generation.ts; this name is kept for the
// importers that still use it (src/domain/settings.ts, src/domain/accounts.ts).
export { bumpAccessGeneration as bumpGeneration } from '../db/access-generation.js';
