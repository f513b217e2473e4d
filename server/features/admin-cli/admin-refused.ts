/** A refusal the command explains in its own words (exit 1), not a failure with a stack. */
export class AdminRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdminRefused';
  }
}
