/**
 * A backup or restore that cannot go ahead for a reason the user can act on; its message says
 * what to do. Thrown before anything is changed.
 */
export class BackupRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupRefused';
  }
}
