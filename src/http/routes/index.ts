import type { HandlerMap } from '../types.js';
import { handlers as actors } from './actors.js';
import { handlers as aiUsage } from './ai-usage.js';
import { handlers as describe } from './describe.js';
import { handlers as ingest } from './ingest.js';
import { handlers as keywords } from './keywords.js';
import { handlers as objects } from './objects.js';
import { handlers as places } from './places.js';
import { handlers as reconcile } from './reconcile.js';
import { handlers as sips } from './sips.js';
import { handlers as tei } from './tei.js';
import { handlers as token } from './token.js';
import { handlers as tokenReports } from './token-reports.js';

export const HANDLERS: HandlerMap = {
  ...describe,
  ...objects,
  ...actors,
  ...places,
  ...keywords,
  ...reconcile,
  ...sips,
  ...ingest,
  ...aiUsage,
  ...tei,
  ...token,
  ...tokenReports,
};
