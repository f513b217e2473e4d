import { ElNotification } from 'element-plus';
import { h } from 'vue';

import type { PlaceholderWarning } from '@contract';

import { TOAST_OFFSET } from './feedback';

type Translate = (key: string, values?: Record<string, unknown>) => string;

/**
 * A placeholder warning in the person's language (the server's sentence is English, for
 * scripts). The marker goes in as a value: vue-i18n would read braces in a message as its own.
 */
export function placeholderWarningText(t: Translate, warning: PlaceholderWarning): string {
  return t(`placeholderWarnings.${warning.kind}`, {
    key: warning.key,
    marker: `{{${warning.key}}}`,
  });
}

/**
 * Says that what was saved will send markers as written (a schedule whose placeholders stay
 * unfilled). It was saved, so this is no refusal: a warning that stays until it is closed, since
 * it is a list to read and act on.
 */
export function notifyPlaceholderWarnings(
  t: Translate,
  title: string,
  warnings: readonly PlaceholderWarning[],
): void {
  ElNotification({
    type: 'warning',
    title,
    message: h(
      'ul',
      { class: 'placeholder-warnings', 'data-testid': 'placeholder-warnings' },
      warnings.map((w) => h('li', { title: w.message }, placeholderWarningText(t, w))),
    ),
    duration: 0,
    offset: TOAST_OFFSET,
  });
}
