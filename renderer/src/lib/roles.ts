import type { UserRole } from '@contract';

/**
 * What the console shows each role. The server decides (its access table answers 403); this
 * only hides what a role would be refused, so nobody meets a button that cannot work.
 */
const RANK: Record<UserRole, number> = { viewer: 0, editor: 1, admin: 2 };

/** Whether `role` may do what needs `need`: admin ⊃ editor ⊃ viewer. */
export function roleAtLeast(role: UserRole | undefined, need: UserRole): boolean {
  return role !== undefined && RANK[role] >= RANK[need];
}

/** The least role of each console page, by route name. */
export const PAGE_ROLES: Record<string, UserRole> = {
  dashboard: 'viewer',
  logs: 'viewer',
  log: 'viewer',
  messages: 'viewer',
  message: 'viewer',
  channels: 'editor',
  tasks: 'editor',
  templates: 'editor',
  schedules: 'editor',
  settings: 'admin',
  users: 'admin',
  audit: 'admin',
};
