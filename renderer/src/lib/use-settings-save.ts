import { useI18n } from 'vue-i18n';

import { toastSuccess } from './feedback';
import { useFormSubmit } from './use-form-submit';

/**
 * Saving a settings card: {@link useFormSubmit} with the "Saved" toast every card gives, since a
 * card's fields already show what was saved. `onSaved` follows the toast, still under `saving`,
 * so a card that refills its form or moves on does so before the saving flag drops.
 */
export function useSettingsSave<R>(submit: () => Promise<R>, onSaved?: (saved: R) => unknown) {
  const { t } = useI18n();
  return useFormSubmit({
    submit,
    onDone: async (saved) => {
      toastSuccess(t('common.saved'));
      await onSaved?.(saved);
    },
  });
}
