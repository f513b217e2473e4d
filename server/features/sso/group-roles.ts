import { USER_ROLES, type UserRole } from '../../../contract';

/**
 * Which provider groups make which role: shared by OpenID Connect's groups claim and the
 * trusted proxy's groups header (issue 44), from HERALD_OIDC_{ADMIN,EDITOR,VIEWER}_GROUPS or
 * Settings → Sign-in.
 */
export interface GroupRoles {
  admin: readonly string[];
  editor: readonly string[];
  viewer: readonly string[];
}

export const NO_GROUP_ROLES: GroupRoles = { admin: [], editor: [], viewer: [] };

/** Whether any group is mapped at all: without a mapping, roles are managed in Herald. */
export function mapsGroups(map: GroupRoles): boolean {
  return map.admin.length + map.editor.length + map.viewer.length > 0;
}

/**
 * The strongest role any of the person's groups names, or null when none does (the role then
 * stays as it is, or a new account starts as viewer). Names match exactly, case included:
 * providers differ in case rules, and a looser match could promote the wrong group.
 */
export function roleForGroups(map: GroupRoles, groups: readonly string[]): UserRole | null {
  const held = new Set(groups);
  for (const role of USER_ROLES) {
    if (map[role].some((group) => held.has(group))) return role;
  }
  return null;
}

/** A comma-separated list as the environment spells it: `admins, ops` → ['admins', 'ops']. */
export function parseGroupList(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .split(',')
    .map((group) => group.trim())
    .filter((group) => group.length > 0);
}
