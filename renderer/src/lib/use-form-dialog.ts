import { nextTick, reactive, watch, type Ref } from 'vue';

import { useFormSubmit, type FormSubmitOptions } from './use-form-submit';

export interface FormDialogOptions<M extends object, R> extends FormSubmitOptions<R> {
  /** The dialog's v-model. */
  open: Ref<boolean>;
  /** The form's values for this opening (blank, or the item being edited); read on every open. */
  model: () => M;
  /** More to do on every open, after the form is filled (load a picker, start a preview). */
  onOpen?: () => void;
  /** Stay open after a success: a dialog that shows what its call answered. */
  keepOpen?: boolean;
}

/**
 * A dialog that submits a form, used with FormDialog (its frame, error and buttons): on every
 * open the form is filled from `model()` and the last refusal and field messages are cleared;
 * submitting is {@link useFormSubmit}, and a success closes the dialog after `onDone`.
 */
export function useFormDialog<M extends object, R>(options: FormDialogOptions<M, R>) {
  const form = reactive(options.model()) as M;
  const submission = useFormSubmit<R>({
    ...options,
    onDone: async (result) => {
      await options.onDone?.(result);
      if (!options.keepOpen) options.open.value = false;
    },
  });

  function opened(): void {
    Object.assign(form, options.model());
    submission.error.value = null;
    options.form?.value?.clearValidate();
    options.onOpen?.();
  }
  watch(options.open, (isOpen) => {
    if (isOpen) opened();
  });
  // A dialog mounted open: after the component's setup, whose later declarations onOpen may use.
  if (options.open.value) void nextTick(opened);

  return { form, ...submission };
}
