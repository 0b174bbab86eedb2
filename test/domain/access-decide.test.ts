// decide() (src/domain/access.ts), the access matrix's verdict for one request: every rule, method
// kind, setting and role, as a table (docs/http-api.md#access-rules). HTTP checks the same through the routes in
// test/http/access-matrix.test.ts.
import { describe, expect, it } from 'vitest';
import { decide, type Rule } from '../../src/domain/access.js';
import { atLeast, ROLES } from '../../src/domain/roles.js';

const settings = (public_api: boolean, public_access: boolean) => ({ public_api, public_access });
const RULES: Rule[] = ['token_or_public_api', 'authority', 'editor', 'token'];

describe('decide', () => {
  it('refuses a blocked account everywhere, whatever the settings, also where anonymous requests are served', () => {
    for (const rule of RULES)
      for (const method of ['GET', 'POST'])
        for (const s of [settings(true, true), settings(false, false)])
          expect(decide(rule, method, s, 'blocked'), `${rule} ${method}`).toBe('forbidden');
  });

  it('serves any other role on token rules, and editors and above on the editor rule', () => {
    for (const role of ROLES.filter((r) => r !== 'blocked')) {
      for (const rule of ['token_or_public_api', 'authority', 'token'] as Rule[])
        expect(decide(rule, 'POST', settings(false, false), role)).toBe('allow');
      const editor = ['editor', 'admin', 'superuser'].includes(role);
      expect(atLeast(role, 'editor')).toBe(editor);
      expect(decide('editor', 'POST', settings(true, true), role), role).toBe(editor ? 'allow' : 'forbidden');
    }
  });

  it('serves requests without a token only where the settings open the rule, reads only for public_api', () => {
    const table: [Rule, string, ReturnType<typeof settings>, string][] = [
      ['token_or_public_api', 'GET', settings(true, false), 'allow'],
      ['token_or_public_api', 'HEAD', settings(true, false), 'allow'],
      ['token_or_public_api', 'POST', settings(true, true), 'unauthenticated'],
      ['token_or_public_api', 'GET', settings(false, true), 'unauthenticated'],
      ['authority', 'POST', settings(false, true), 'allow'],
      ['authority', 'GET', settings(true, false), 'allow'],
      ['authority', 'HEAD', settings(true, false), 'allow'],
      ['authority', 'POST', settings(true, false), 'unauthenticated'],
      ['authority', 'GET', settings(false, false), 'unauthenticated'],
      ['editor', 'GET', settings(true, true), 'unauthenticated'],
      ['token', 'GET', settings(true, true), 'unauthenticated'],
    ];
    for (const [rule, method, s, expected] of table)
      expect(decide(rule, method, s, null), `${rule} ${method} ${JSON.stringify(s)}`).toBe(expected);
  });
});
