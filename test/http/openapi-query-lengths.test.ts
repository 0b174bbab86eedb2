// The query texts the description bounds at 255 characters (a suggest service's `prefix`,
// `query` and `type`, the actors' `authority_type`, the objects' `identifier`): 256 characters
// are a 422 naming the parameter, 255 are read (counted in code points, as maxLength counts).
import { describe, expect, it } from 'vitest';
import { useDaemonWithTokens } from '../helpers/http.js';

const { api, t } = useDaemonWithTokens();

interface Doc {
  paths: Record<string, Record<string, { parameters?: { name: string; schema: { maxLength?: number } }[] }>>;
}

const NAMES = ['prefix', 'query', 'type', 'authority_type', 'identifier'];
/**
 * 255 code points (an astral character counts once, as maxLength counts): a type named between
 * spaces for `authority_type` (it names one), else 255 musical symbols, which name nothing.
 */
const longest = (name: string) => (name === 'authority_type' ? `${' '.repeat(249)}person` : '𝄞'.repeat(255));

async function bounded(): Promise<[string, string][]> {
  const doc = (await api.get('/api/openapi.json')).body as Doc;
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    (item.get?.parameters ?? [])
      .filter((p) => NAMES.includes(p.name) && p.schema.maxLength === 255)
      .map((p): [string, string] => [path, p.name]),
  );
}

describe('query texts bounded at 255 characters', () => {
  it('are described on every suggest service, the actors and the objects list', async () => {
    const cases = await bounded();
    const named = (path: string) => cases.filter(([p]) => p === path).map(([, n]) => n);
    expect(named('/api/actors')).toContain('authority_type');
    expect(named('/api/objects')).toContain('identifier');
    for (const register of ['actors', 'places', 'keywords'])
      expect(named(`/api/${register}/reconcile/suggest/entity`)).toEqual(
        expect.arrayContaining(['prefix', 'query', 'type']),
      );
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  it('256 characters are a 422 naming the parameter; 255 are not refused for their length', async () => {
    const cases = await bounded();
    for (const [path, name] of cases) {
      const at = (value: string) => `${path}?${name}=${encodeURIComponent(value)}`;
      const long = await api.get(at(` ${longest(name)}`), t.user);
      expect(long.status, `${path} ${name}`).toBe(422);
      expect((long.body as { fields?: Record<string, string> }).fields?.[name], `${path} ${name}`).toMatch(/255/);
      const fits = await api.get(at(longest(name)), t.user);
      expect(fits.status, `${path} ${name}: ${fits.text}`).toBe(200);
    }
  });
});
