import type { FormItemRule } from 'element-plus';
import { computed, type ComputedRef } from 'vue';
import { useI18n } from 'vue-i18n';

/**
 * How long a password being set may be: the server's `newPasswordSchema`
 * (contract/console/users.ts). The console bundles no schema, so the numbers are written here
 * once for every form that sets a password; test/renderer/new-password-fields.test.ts checks
 * them against the schema.
 */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 200;

/**
 * The el-form rule for a new password's length, with the message naming both limits. An empty
 * field passes: whether one is needed is the form's own `required` rule (an account being
 * edited keeps its password when the field is left empty).
 */
export function useNewPasswordLengthRule(): ComputedRef<FormItemRule> {
  const { t } = useI18n();
  return computed(() => ({
    min: PASSWORD_MIN_LENGTH,
    max: PASSWORD_MAX_LENGTH,
    message: t('auth.passwordLength', { min: PASSWORD_MIN_LENGTH, max: PASSWORD_MAX_LENGTH }),
    trigger: 'blur',
  }));
}
