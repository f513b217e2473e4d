import { ElForm, type FormInstance } from 'element-plus';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defineComponent, h, reactive, ref } from 'vue';

import { newPasswordSchema } from '../../contract';
import NewPasswordFields from '../../renderer/src/components/NewPasswordFields.vue';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../renderer/src/lib/new-password';
import { mountWithApp, settle } from './helpers/mount';

/** An el-form holding the fields the way the console's forms do; the test keeps its model. */
function harness(props: { testid: string; confirmTestid?: string }) {
  const model = reactive({ password: '', confirm: '' });
  const form = ref<FormInstance>();
  const Host = defineComponent({
    setup: () => () =>
      h(ElForm, { ref: form, model, labelPosition: 'top' }, () =>
        h(NewPasswordFields, {
          modelValue: model.password,
          'onUpdate:modelValue': (v: string) => (model.password = v),
          confirm: model.confirm,
          'onUpdate:confirm': (v: string) => (model.confirm = v),
          label: 'New password',
          ...props,
        }),
      ),
  });
  const { wrapper } = mountWithApp(Host);
  return { wrapper, model, validate: () => form.value!.validate().catch(() => false) };
}

const input = (testid: string) =>
  document.querySelector<HTMLInputElement>(`input[data-testid="${testid}"]`)!;

async function type(testid: string, value: string) {
  input(testid).value = value;
  input(testid).dispatchEvent(new Event('input'));
  await settle();
}

/** The messages under the fields; Element Plus shows a field's state after a short debounce. */
const expectErrors = (messages: string[]) =>
  vi.waitFor(() =>
    expect(
      [...document.querySelectorAll('.el-form-item__error')].map((e) => e.textContent?.trim()),
    ).toEqual(messages),
  );

afterEach(() => {
  document.body.innerHTML = '';
});

describe('NewPasswordFields', () => {
  it('shows the password and its repetition as new passwords, the repetition as <testid>-confirm', () => {
    const { wrapper } = harness({ testid: 'invite-password' });
    const labels = wrapper.findAll('.el-form-item__label').map((l) => l.text());
    expect(labels).toEqual(['New password', 'Confirm password']);
    for (const id of ['invite-password', 'invite-password-confirm']) {
      expect(input(id).type).toBe('password');
      expect(input(id).autocomplete).toBe('new-password');
    }
  });

  it('takes another test id for the repetition', () => {
    harness({ testid: 'password-new', confirmTestid: 'password-confirm' });
    expect(input('password-confirm')).not.toBeNull();
    expect(input('password-new-confirm')).toBeNull();
  });

  it('writes what is typed to the two v-models', async () => {
    const { model } = harness({ testid: 'pw' });
    await type('pw', 'first value');
    await type('pw-confirm', 'second value');
    expect(model).toEqual({ password: 'first value', confirm: 'second value' });
  });

  it("makes the enclosing form's validate() ask for a password", async () => {
    const { validate } = harness({ testid: 'pw' });
    expect(await validate()).toBe(false);
    await expectErrors(['Enter a password']);
  });

  it('refuses fewer than 8 and more than 200 characters', async () => {
    const { validate } = harness({ testid: 'pw' });
    await type('pw', 'seven77');
    await type('pw-confirm', 'seven77');
    expect(await validate()).toBe(false);
    await expectErrors(['8 to 200 characters']);

    await type('pw', 'x'.repeat(201));
    await type('pw-confirm', 'x'.repeat(201));
    expect(await validate()).toBe(false);

    await type('pw', 'x'.repeat(200));
    await type('pw-confirm', 'x'.repeat(200));
    expect(await validate()).toBe(true);
  });

  it('the limits are the server’s: what the contract’s schema takes, at both ends', () => {
    const takes = (length: number) => newPasswordSchema.safeParse('x'.repeat(length)).success;
    expect(takes(PASSWORD_MIN_LENGTH - 1)).toBe(false);
    expect(takes(PASSWORD_MIN_LENGTH)).toBe(true);
    expect(takes(PASSWORD_MAX_LENGTH)).toBe(true);
    expect(takes(PASSWORD_MAX_LENGTH + 1)).toBe(false);
  });

  it('counts characters as the server does: an emoji is one of them', async () => {
    // Both count code points (zod's length checks and the form's rule alike): four emoji are
    // too short for either, eight fit, two hundred fit and 201 are too long.
    for (const [password, fits] of [
      ['🔑'.repeat(7), false],
      ['🔑'.repeat(8), true],
      ['🔑'.repeat(200), true],
      ['🔑'.repeat(201), false],
    ] as const) {
      expect(newPasswordSchema.safeParse(password).success).toBe(fits);
      const { validate } = harness({ testid: 'pw' });
      await type('pw', password);
      await type('pw-confirm', password);
      expect(await validate()).toBe(fits);
      document.body.innerHTML = '';
    }
  });

  it('refuses a repetition that differs, and passes once it matches', async () => {
    const { validate } = harness({ testid: 'pw' });
    await type('pw', 'long enough');
    await type('pw-confirm', 'long enougH');
    expect(await validate()).toBe(false);
    await expectErrors(['The passwords do not match']);

    await type('pw-confirm', 'long enough');
    expect(await validate()).toBe(true);
    await expectErrors([]);
  });
});
