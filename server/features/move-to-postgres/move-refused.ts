/** A move that cannot start or cannot finish for a reason the user can act on. */
export class MoveRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MoveRefused';
  }
}

/** A name as a PostgreSQL identifier, quoted. */
export const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;
