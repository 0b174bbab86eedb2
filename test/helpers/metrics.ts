// The token counters of a daemon, read as an operator reads them: GET /metrics from loopback
// (the default "metrics": "local"), in the Prometheus text format.
import { expect } from 'vitest';

export interface AuthCounters {
  kdfRuns: number;
  lookups: number;
  cacheHits: number;
  cacheEntries: number;
  busy: number;
  /** archivectl_auth_refusals_total by reason. */
  refused: Record<string, number>;
}

export async function authCounters(daemonUrl: string): Promise<AuthCounters> {
  const res = await fetch(`${daemonUrl}/metrics`);
  expect(res.status).toBe(200);
  const text = await res.text();
  const value = (name: string) => {
    const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
    return m ? Number(m[1]) : 0;
  };
  const refused: Record<string, number> = {};
  for (const m of text.matchAll(/^archivectl_auth_refusals_total\{reason="([a-z_]+)"\} (\S+)$/gm))
    refused[m[1] as string] = Number(m[2]);
  return {
    kdfRuns: value('archivectl_kdf_runs_total'),
    lookups: value('archivectl_token_lookups_total'),
    cacheHits: value('archivectl_token_cache_hits_total'),
    cacheEntries: value('archivectl_token_cache_entries'),
    busy: value('archivectl_kdf_busy_total'),
    refused,
  };
}
