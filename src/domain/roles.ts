// Roles, lowest to highest; each includes the rights of those below it (docs/http-api.md#access-rules).

export const ROLES = ['blocked', 'user', 'user_intern', 'loan_admin', 'editor', 'admin', 'superuser'] as const;
export type Role = (typeof ROLES)[number];

const rank = (role: Role) => ROLES.indexOf(role);

/** True when `role` includes the rights of `minimum`. A blocked account has no rights at all. */
export function atLeast(role: Role, minimum: Role): boolean {
  return role !== 'blocked' && rank(role) >= rank(minimum);
}
