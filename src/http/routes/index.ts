// Every route of the API, in the order of docs/http-api.md#access-rules: each declared once,
// beside its handler (../route.ts). The router, the access and scope steps, `archivectl routes`
// and the served description are derived from this list.
import { RECONCILE_KINDS } from '../../domain/catalog/reconcile/service.js';
import { RESOURCES } from '../../domain/catalog/resources/index.js';
import type { Route } from '../route.js';
import { routes as actors } from './actors.js';
import { routes as aiUsage } from './ai-usage.js';
import { catalogRoutes } from './catalog-routes.js';
import { describeRoutes } from './describe.js';
import { routes as ingest } from './ingest.js';
import { routes as keywords } from './keywords.js';
import { routes as objects } from './objects.js';
import { routes as places } from './places.js';
import { reconciliationRoutes } from './reconcile.js';
import { draftRoutes } from './reconcile-draft.js';
import { routes as sips } from './sips.js';
import { exportRoutes, routes as tei } from './tei.js';
import { routes as token } from './token.js';
import { routes as tokenReports } from './token-reports.js';

/** A register's reconciliation services (0.2, then 1.0-draft), after its list. */
function reconciliation(table: string): Route[] {
  const kind = RECONCILE_KINDS.find((k) => k === table);
  return kind ? [...reconciliationRoutes(kind), ...draftRoutes(kind)] : [];
}

/** The resources whose routes say more than their description (a filter, Anton's fields, rules). */
const OWN: Record<string, Route[]> = { actors, places, keywords, objects };

/** A resource's list, its reconciliation services, then its record routes. */
function resource(r: (typeof RESOURCES)[number]): Route[] {
  const [list, ...record] = OWN[r.table] ?? catalogRoutes({ resource: r });
  return [...(list ? [list] : []), ...reconciliation(r.table), ...record];
}

export const ROUTES: readonly Route[] = [
  ...describeRoutes(() => ROUTES),
  ...RESOURCES.flatMap(resource),
  ...sips,
  ...ingest,
  ...aiUsage,
  ...tei,
  ...token,
  ...tokenReports,
  ...exportRoutes,
];
