/**
 * A rotation that did not begin, for a reason the user can act on (a running Herald, a key
 * that does not match, a key file that cannot be written): said as is, with nothing changed.
 */
export class RotationRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RotationRefused';
  }
}
