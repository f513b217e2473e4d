import type { FormInstance } from 'element-plus';
import { ref, type Ref } from 'vue';

import { errorText } from './feedback';

export interface FormSubmitOptions<R> {
  /** The call the form makes; its refusal is shown in `error`. */
  submit: () => Promise<R>;
  /** An el-form whose rules must pass first; each shows its message next to its field. */
  form?: Ref<FormInstance | undefined>;
  /** Further checks made in the page: the message to show instead of submitting, or null. */
  check?: () => string | null;
  /** What follows a success (a toast, a reload, an event), still under the saving flag. */
  onDone?: (result: R) => unknown;
}

/**
 * Submitting a form (rule 2 in feedback.ts): the form's own checks first, then the call with a
 * `saving` flag, and the server's refusal in `error`, which the form shows inline. `onSubmit()`
 * resolves whether it went through and never throws.
 */
export function useFormSubmit<R>(options: FormSubmitOptions<R>) {
  const saving = ref(false);
  const error = ref<string | null>(null);

  async function onSubmit(): Promise<boolean> {
    if (options.form && !(await options.form.value?.validate().catch(() => false))) return false;
    const refusal = options.check?.() ?? null;
    if (refusal) {
      error.value = refusal;
      return false;
    }
    saving.value = true;
    error.value = null;
    try {
      const result = await options.submit();
      await options.onDone?.(result);
      return true;
    } catch (err) {
      error.value = errorText(err);
      return false;
    } finally {
      saving.value = false;
    }
  }

  return { saving, error, onSubmit };
}
