import { AppError } from '../../lib/errors';
import { at, presetValues, type HookPreset } from './hook-preset';

/**
 * Any JSON: every leaf is a placeholder by its dotted path (`{{deploy.env}}`,
 * `{{deploy.items.1}}`). The title is the top-level `title` when it is text, else empty, so
 * the template's name stands in.
 */
export const genericPreset: HookPreset = {
  name: 'generic',
  contentType: 'json',
  toMessage(body) {
    if (typeof body !== 'object' || body === null) {
      throw new AppError(400, 'request body must be a JSON object or array');
    }
    return { title: at(body, 'title').trim(), ...presetValues(body, {}) };
  },
};
