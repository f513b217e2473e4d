import { USER_ROLES, type UserRole } from '../../../contract/console/users';

/** The account a subscription belongs to, as it is at push time. */
export interface PushReader {
  role: string;
  disabled: boolean;
}

/** The source of a hosted message: the task or template whose send stored it. */
export interface MessageSource {
  taskId: number | null;
  templateId: number | null;
}

/**
 * Whether `reader` may read a hosted message of `source`: asked when pushes are planned and
 * again at every attempt, so a subscription follows its owner's rights as they are now, not as
 * they were when the browser subscribed. Today every enabled account may read the whole reader
 * (docs/running-for-a-team.md "Users and roles"); rights narrowed by source belong here.
 */
export function mayReadMessage(reader: PushReader, _source: MessageSource): boolean {
  if (reader.disabled) return false;
  return (USER_ROLES as readonly string[]).includes(reader.role as UserRole);
}
