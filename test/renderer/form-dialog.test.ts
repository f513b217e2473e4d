import { ElForm, ElFormItem, ElInput, type FormInstance } from 'element-plus';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defineComponent, effectScope, h, nextTick, ref, type Ref } from 'vue';

import { ApiError } from '../../renderer/src/api/http-client';
import FormDialog from '../../renderer/src/components/FormDialog.vue';
import NameDialog from '../../renderer/src/components/NameDialog.vue';
import { useFormDialog } from '../../renderer/src/lib/use-form-dialog';
import { mountWithApp, settle } from './helpers/mount';

interface Harness {
  submit: (name: string) => Promise<string>;
  onDone?: (result: string) => void;
  keepOpen?: boolean;
  initial?: () => string;
}

/**
 * A dialog written the way the console's are: useFormDialog for the logic, FormDialog around it.
 * `open` is its v-model, held by the test.
 */
function formDialog(options: Harness, open: Ref<boolean>) {
  return defineComponent({
    setup() {
      const { form, saving, error, onSubmit } = useFormDialog({
        open,
        model: () => ({ name: options.initial?.() ?? '' }),
        check: (): string | null => (form.name === 'forbidden' ? 'That name is not allowed' : null),
        submit: (): Promise<string> => options.submit(form.name),
        onDone: options.onDone,
        keepOpen: options.keepOpen,
      });
      return () =>
        h(
          FormDialog,
          {
            open: open.value,
            'onUpdate:open': (v: boolean) => (open.value = v),
            title: 'Name it',
            testid: 'thing',
            saving: saving.value,
            error: error.value,
            onSubmit: () => void onSubmit(),
          },
          () =>
            h(ElForm, { model: form }, () =>
              h(ElFormItem, { prop: 'name', label: 'Name' }, () =>
                h(ElInput, {
                  modelValue: form.name,
                  'onUpdate:modelValue': (v: string) => (form.name = v),
                  'data-testid': 'thing-name',
                }),
              ),
            ),
        );
    },
  });
}

const $ = (testid: string) => document.querySelector<HTMLElement>(`[data-testid="${testid}"]`);
const nameInput = () =>
  document.querySelector<HTMLInputElement>('input[data-testid="thing-name"]')!;

async function type(value: string) {
  const input = nameInput();
  input.value = value;
  input.dispatchEvent(new Event('input'));
  await settle();
}

async function clickSave() {
  $('thing-save')!.click();
  await settle();
}

afterEach(() => {
  document.body.innerHTML = '';
});

describe('useFormDialog() with FormDialog', () => {
  it('opening fills the form from model() each time, so an abandoned edit is not kept', async () => {
    let initial = 'first';
    const open = ref(false);
    const { wrapper } = mountWithApp(
      formDialog({ submit: async (n) => n, initial: () => initial }, open),
    );
    open.value = true;
    await settle();
    expect(nameInput().value).toBe('first');

    await type('abandoned');
    $('thing-cancel')!.click();
    await settle();
    expect(open.value).toBe(false);
    initial = 'second';
    open.value = true;
    await settle();

    expect(nameInput().value).toBe('second');
    wrapper.unmount();
  });

  it('an el-form that fails its rules stops the submit, and every open clears its field messages', async () => {
    let valid = false;
    const formInstance = {
      validate: vi.fn(() => (valid ? Promise.resolve(true) : Promise.reject(new Error('invalid')))),
      clearValidate: vi.fn(),
    };
    const submit = vi.fn(async () => 'saved');
    const open = ref(false);
    const scope = effectScope();
    const dialog = scope.run(() =>
      useFormDialog({
        open,
        form: ref(formInstance as unknown as FormInstance),
        model: () => ({ name: '' }),
        submit,
      }),
    )!;
    open.value = true;
    await nextTick();
    expect(formInstance.clearValidate).toHaveBeenCalledTimes(1);

    await expect(dialog.onSubmit()).resolves.toBe(false);
    expect(submit).not.toHaveBeenCalled();
    // The rules show their own messages next to their fields: no dialog error on top.
    expect(dialog.error.value).toBeNull();

    valid = true;
    await expect(dialog.onSubmit()).resolves.toBe(true);
    expect(submit).toHaveBeenCalledTimes(1);
    expect(open.value).toBe(false);
    scope.stop();
  });

  it('check() stops the submit with its message as the dialog’s error', async () => {
    const submit = vi.fn(async (n: string) => n);
    const { wrapper } = mountWithApp(formDialog({ submit }, ref(true)));
    await settle();

    await type('forbidden');
    await clickSave();

    expect(submit).not.toHaveBeenCalled();
    expect($('thing-error')?.textContent).toContain('That name is not allowed');
    wrapper.unmount();
  });

  it('a refusal shows the server msg in the dialog and keeps it open as typed; a success closes it after onDone', async () => {
    let release: () => void = () => undefined;
    let refuse = true;
    const onDone = vi.fn();
    const submit = vi.fn(
      (name: string) =>
        new Promise<string>((resolve, reject) => {
          release = () =>
            refuse ? reject(new ApiError(409, `名称 ${name} 已存在`)) : resolve(`#${name}`);
        }),
    );
    const open = ref(true);
    const { wrapper } = mountWithApp(formDialog({ submit, onDone }, open));
    await settle();
    await type('nightly');

    await clickSave();
    expect($('thing-save')!.classList).toContain('is-loading');
    release();
    await settle();

    expect($('thing-save')!.classList).not.toContain('is-loading');
    expect($('thing-error')?.getAttribute('role')).toBe('alert');
    expect($('thing-error')?.textContent).toContain('名称 nightly 已存在');
    expect(nameInput().value).toBe('nightly');
    expect(onDone).not.toHaveBeenCalled();
    expect(open.value).toBe(true);

    refuse = false;
    await clickSave();
    expect($('thing-error')).toBeNull();
    release();
    await settle();

    expect(submit).toHaveBeenCalledTimes(2);
    expect(onDone).toHaveBeenCalledWith('#nightly');
    expect(open.value).toBe(false);
    wrapper.unmount();
  });

  it('keepOpen leaves the dialog open after a success, and reopening clears the last refusal', async () => {
    let refuse = true;
    const submit = async (name: string) => {
      if (refuse) throw new ApiError(400, 'name: too long');
      return name;
    };
    const open = ref(true);
    const { wrapper } = mountWithApp(formDialog({ submit, keepOpen: true }, open));
    await settle();
    await type('x');
    await clickSave();
    expect($('thing-error')?.textContent).toContain('name: too long');

    open.value = false;
    await settle();
    open.value = true;
    await settle();
    expect($('thing-error')).toBeNull();

    refuse = false;
    await type('y');
    await clickSave();
    expect(open.value).toBe(true);
    expect($('thing-dialog')).not.toBeNull();
    wrapper.unmount();
  });
});

describe('NameDialog', () => {
  it('NameDialog asks for a name, sends it trimmed, and shows the server msg when refused', async () => {
    const submit = vi
      .fn<(name: string) => Promise<unknown>>()
      .mockRejectedValueOnce(new ApiError(409, 'a task named "nightly" exists'))
      .mockResolvedValueOnce(undefined);
    const { wrapper } = mountWithApp(NameDialog, {
      props: { open: true, title: 'New task', testid: 'task', submit },
    });
    await settle();
    const save = () => $('task-save')!.click();

    save();
    await settle();
    expect($('task-error')?.textContent).toContain('Name is required');
    expect(submit).not.toHaveBeenCalled();

    const input = document.querySelector<HTMLInputElement>('input[data-testid="task-name"]')!;
    input.value = '  nightly ';
    input.dispatchEvent(new Event('input'));
    save();
    await settle();
    expect(submit).toHaveBeenCalledWith('nightly');
    expect($('task-error')?.textContent).toContain('a task named "nightly" exists');

    save();
    await settle();
    expect(wrapper.emitted('update:open')?.at(-1)).toEqual([false]);
    wrapper.unmount();
  });
});
