import { afterEach, describe, expect, it, vi } from 'vitest';
import { defineComponent, h, reactive } from 'vue';

import { ApiError } from '../../renderer/src/api/http-client';
import SettingsCardFrame from '../../renderer/src/components/settings/SettingsCardFrame.vue';
import SettingsForm from '../../renderer/src/components/settings/SettingsForm.vue';
import SettingsSwitchCard from '../../renderer/src/components/settings/SettingsSwitchCard.vue';
import { useSettingsSave } from '../../renderer/src/lib/use-settings-save';
import { createContext, mountWithApp, settle } from './helpers/mount';

/** The toasts Element Plus has put on the page, newest last. */
const toasts = () =>
  [...document.querySelectorAll('.el-message')].map((el) => ({
    type: [...el.classList].find((c) => c.startsWith('el-message--'))?.slice('el-message--'.length),
    text: el.querySelector('.el-message__content')?.textContent?.trim(),
  }));

/** A call the test answers when it chooses, to look at the card while the call is out. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * A card written the way the settings cards are: useSettingsSave for the logic, the frame and
 * SettingsForm around one field. `submit` is the call its Save makes.
 */
function savingCard(
  submit: (name: string) => Promise<string>,
  onSaved?: (saved: string) => unknown,
) {
  return defineComponent({
    setup() {
      const form = reactive({ name: 'first' });
      const { saving, error, onSubmit } = useSettingsSave(() => submit(form.name), onSaved);
      return () =>
        h(SettingsCardFrame, { title: 'Naming', 'data-testid': 'naming-card' }, () =>
          h(
            SettingsForm,
            {
              error: error.value,
              errorTestid: 'naming-error',
              saving: saving.value,
              saveTestid: 'naming-save',
              onSubmit,
            },
            {
              default: () => h('input', { 'data-testid': 'naming-field' }),
              actions: () => h('button', { type: 'button', 'data-testid': 'naming-extra' }),
            },
          ),
        );
    },
  });
}

describe('SettingsCardFrame and SettingsForm', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    document.body.innerHTML = '';
  });

  it('frames the card: its title in the header, the test id on the card, the fields then Save', async () => {
    const { wrapper } = mountWithApp(savingCard(async (name) => name));
    const card = wrapper.get('[data-testid="naming-card"]');
    expect(card.classes()).toContain('el-card');
    expect(card.get('.el-card__header').text()).toBe('Naming');
    const body = card.get('.el-card__body form');
    const ids = body.findAll('[data-testid]').map((el) => el.attributes('data-testid'));
    expect(ids).toEqual(['naming-field', 'naming-save', 'naming-extra']);
    expect(body.get('[data-testid="naming-save"]').text()).toBe('Save');
    expect(body.get('[data-testid="naming-save"]').attributes('type')).toBe('submit');
    expect(wrapper.find('[data-testid="naming-error"]').exists()).toBe(false);
    wrapper.unmount();
  });

  it('saves on submit: Save spins while the call is out, then "Saved" and onSaved with the answer', async () => {
    const call = deferred<string>();
    const submit = vi.fn(() => call.promise);
    const onSaved = vi.fn((saved: string) => {
      // The toast comes first, and Save still spins while onSaved runs.
      expect(toasts()).toEqual([{ type: 'success', text: 'Saved' }]);
      expect(wrapper.get('[data-testid="naming-save"]').classes()).toContain('is-loading');
      return saved;
    });
    const { wrapper } = mountWithApp(savingCard(submit, onSaved));

    await wrapper.get('form').trigger('submit');
    await settle();
    expect(submit).toHaveBeenCalledWith('first');
    expect(wrapper.get('[data-testid="naming-save"]').classes()).toContain('is-loading');
    expect(onSaved).not.toHaveBeenCalled();

    call.resolve('kept');
    await settle();
    expect(onSaved).toHaveBeenCalledWith('kept');
    expect(wrapper.get('[data-testid="naming-save"]').classes()).not.toContain('is-loading');
    expect(wrapper.find('[data-testid="naming-error"]').exists()).toBe(false);
    wrapper.unmount();
  });

  it('shows the server’s refusal under the fields, with no toast, and clears it on the next save', async () => {
    let refuse = true;
    const onSaved = vi.fn();
    const { wrapper } = mountWithApp(
      savingCard(async (name) => {
        if (refuse) throw new ApiError(400, 'name: is taken');
        return name;
      }, onSaved),
    );

    await wrapper.get('form').trigger('submit');
    await settle();
    const error = wrapper.get('[data-testid="naming-error"]');
    expect(error.text()).toContain('name: is taken');
    // Announced as it appears, as FormDialog's refusal is (FormError).
    expect(error.attributes('role')).toBe('alert');
    expect(error.get('.el-alert').classes()).toContain('el-alert--error');
    expect(toasts()).toEqual([]);
    expect(onSaved).not.toHaveBeenCalled();

    refuse = false;
    await wrapper.get('form').trigger('submit');
    await settle();
    expect(wrapper.find('[data-testid="naming-error"]').exists()).toBe(false);
    expect(onSaved).toHaveBeenCalledWith('first');
    wrapper.unmount();
  });

  it('says "Saved" in the app’s language', async () => {
    const { wrapper } = mountWithApp(
      savingCard(async (name) => name),
      {},
      createContext('zh-CN'),
    );
    expect(wrapper.get('[data-testid="naming-save"]').text()).toBe('保存');

    await wrapper.get('form').trigger('submit');
    await settle();
    expect(toasts()).toEqual([{ type: 'success', text: '已保存' }]);
    wrapper.unmount();
  });
});

describe('SettingsSwitchCard', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    document.body.innerHTML = '';
  });

  const props = (over: Record<string, unknown> = {}) => ({
    title: 'Reading',
    label: 'Load pictures',
    help: 'Pictures come from other servers.',
    on: false,
    save: vi.fn(async () => undefined),
    testid: 'pictures',
    saveTestid: 'pictures-save',
    errorTestid: 'pictures-error',
    ...over,
  });

  it('shows what the server holds, keeps a click as a draft until Save, then runs afterSave', async () => {
    const call = deferred<undefined>();
    const save = vi.fn(() => call.promise);
    const afterSave = vi.fn();
    const { wrapper } = mountWithApp(SettingsSwitchCard, { props: props({ save, afterSave }) });
    expect(wrapper.get('.el-card__header').text()).toBe('Reading');
    expect(wrapper.get('.el-form-item__label').text()).toBe('Load pictures');
    expect(wrapper.get('.help').text()).toBe('Pictures come from other servers.');
    const toggle = () => wrapper.get('[data-testid="pictures"]');
    expect(toggle().classes()).not.toContain('is-checked');
    expect(toggle().get('input').attributes('aria-label')).toBe('Load pictures');

    const saveButton = () => wrapper.get('[data-testid="pictures-save"]');
    await toggle().trigger('click');
    await settle();
    // One pattern on the Settings page: a switch is a draft, like every field, until Save.
    expect(save).not.toHaveBeenCalled();
    expect(toggle().classes()).toContain('is-checked');
    await wrapper.get('form').trigger('submit');
    await settle();
    expect(save).toHaveBeenCalledWith(true);
    expect(saveButton().classes()).toContain('is-loading');
    expect(afterSave).not.toHaveBeenCalled();

    call.resolve(undefined);
    await settle();
    expect(afterSave).toHaveBeenCalledTimes(1);
    expect(toasts()).toEqual([{ type: 'success', text: 'Saved' }]);
    expect(saveButton().classes()).not.toContain('is-loading');
    // The switch follows the server's value, which the page passes back in `on`.
    await wrapper.setProps({ on: true });
    expect(toggle().classes()).toContain('is-checked');

    await toggle().trigger('click');
    await wrapper.get('form').trigger('submit');
    await settle();
    expect(save).toHaveBeenLastCalledWith(false);
    wrapper.unmount();
  });

  it('shows the refusal in the card and keeps the switch as the person set it, to save again', async () => {
    const save = vi.fn(async () => {
      throw new ApiError(403, 'Only an administrator can change this');
    });
    const afterSave = vi.fn();
    const { wrapper } = mountWithApp(SettingsSwitchCard, { props: props({ save, afterSave }) });

    await wrapper.get('[data-testid="pictures"]').trigger('click');
    await wrapper.get('form').trigger('submit');
    await settle();
    expect(wrapper.get('[data-testid="pictures-error"]').text()).toContain(
      'Only an administrator can change this',
    );
    expect(wrapper.get('[data-testid="pictures"]').classes()).toContain('is-checked');
    expect(afterSave).not.toHaveBeenCalled();
    expect(toasts()).toEqual([]);
    wrapper.unmount();
  });
});
