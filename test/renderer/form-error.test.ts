import { afterEach, describe, expect, it } from 'vitest';
import { defineComponent, h, nextTick, ref } from 'vue';

import FormError from '../../renderer/src/components/FormError.vue';
import { mountWithApp } from './helpers/mount';

/** A form's error as the console's forms hold it, with the test id and class a caller gives. */
function host(initial: string | null) {
  const error = ref<string | null>(initial);
  const Host = defineComponent({
    setup: () => () =>
      h('form', [
        h('input', { 'data-testid': 'field' }),
        h(FormError, { error: error.value, class: 'gap', 'data-testid': 'thing-error' }),
      ]),
  });
  return { error, Host };
}

afterEach(() => {
  document.body.innerHTML = '';
});

describe('FormError', () => {
  it('renders nothing without an error: no alert, no test id', () => {
    for (const none of [null, '']) {
      const { Host } = host(none);
      const { wrapper } = mountWithApp(Host);
      expect(wrapper.find('[data-testid="thing-error"]').exists()).toBe(false);
      expect(wrapper.find('[role="alert"]').exists()).toBe(false);
      expect(wrapper.find('.el-alert').exists()).toBe(false);
      wrapper.unmount();
    }
  });

  it('shows the error as an error alert with role="alert" on the element with the caller’s test id', () => {
    const { Host } = host('name: is taken');
    const { wrapper } = mountWithApp(Host);
    const error = wrapper.get('[data-testid="thing-error"]');
    expect(error.attributes('role')).toBe('alert');
    expect(error.text()).toBe('name: is taken');
    // Vue Test Utils stubs el-alert's Transition: the attributes sit on the stub, the box inside.
    const alert = error.get('.el-alert');
    expect(alert.classes()).toContain('el-alert--error');
    expect(alert.find('.el-alert__icon').exists()).toBe(true);
    // No form's refusal can be dismissed: it goes when the next submit succeeds.
    expect(alert.find('.el-alert__close-btn').exists()).toBe(false);
    wrapper.unmount();
  });

  it('in the browser (no Transition stub) the test id, the class and the role are on one box', () => {
    const { Host } = host('name: is taken');
    const { wrapper } = mountWithApp(Host, { global: { stubs: { transition: false } } });
    const error = wrapper.get('[data-testid="thing-error"]');
    expect(error.element.tagName).toBe('DIV');
    expect(error.classes()).toEqual(expect.arrayContaining(['el-alert', 'el-alert--error', 'gap']));
    expect(error.attributes('role')).toBe('alert');
    // What an end-to-end test reads with textContent(): the message alone.
    expect(error.element.textContent?.trim()).toBe('name: is taken');
    expect(wrapper.findAll('[role="alert"]')).toHaveLength(1);
    wrapper.unmount();
  });

  it('follows the error: appears, changes its text, and goes when it is cleared', async () => {
    const { error, Host } = host(null);
    const { wrapper } = mountWithApp(Host);
    expect(wrapper.find('[data-testid="thing-error"]').exists()).toBe(false);

    error.value = 'first refusal';
    await nextTick();
    expect(wrapper.get('[data-testid="thing-error"]').text()).toBe('first refusal');

    error.value = 'second refusal';
    await nextTick();
    expect(wrapper.get('[data-testid="thing-error"]').text()).toBe('second refusal');

    error.value = null;
    await nextTick();
    expect(wrapper.find('[data-testid="thing-error"]').exists()).toBe(false);
    wrapper.unmount();
  });
});
