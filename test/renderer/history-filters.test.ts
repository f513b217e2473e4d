import { ElDatePicker } from 'element-plus';
import { afterEach, describe, expect, it } from 'vitest';
import { defineComponent, h, reactive } from 'vue';

import HistoryFilters from '../../renderer/src/components/HistoryFilters.vue';
import {
  emptyHistoryFilters,
  historyQuery,
  type HistoryFilterValues,
} from '../../renderer/src/lib/history-query';
import { mountWithApp, settle } from './helpers/mount';

const LABELS = { search: 'Search it', from: 'Since', to: 'Until', range: 'Which days' };

/** The filters in a toolbar, a page's own filter between them; the test keeps the values. */
function harness() {
  const values = reactive<HistoryFilterValues>(emptyHistoryFilters());
  const Host = defineComponent({
    setup: () => () =>
      h('div', { class: 'toolbar', 'data-testid': 'bar' }, [
        h(
          HistoryFilters,
          {
            q: values.q,
            'onUpdate:q': (v: string) => (values.q = v),
            range: values.range,
            'onUpdate:range': (v: [Date, Date] | null) => (values.range = v),
            labels: LABELS,
            searchTestid: 'thing-search',
            rangeTestid: 'thing-range',
          },
          () => h('span', { 'data-testid': 'thing-own' }, 'own filter'),
        ),
      ]),
  });
  const { wrapper } = mountWithApp(Host);
  return { wrapper, values };
}

afterEach(() => {
  document.body.innerHTML = '';
});

describe('HistoryFilters', () => {
  it('puts the search box first, the page’s own filters next and the day range last, in the toolbar itself', () => {
    const { wrapper } = harness();
    // No wrapper of its own: the three are children of the toolbar, side by side.
    const [search, own, range, ...rest] = [...wrapper.get('[data-testid="bar"]').element.children];
    expect(rest).toEqual([]);
    expect(search.querySelector('input')?.dataset.testid).toBe('thing-search');
    expect(own.getAttribute('data-testid')).toBe('thing-own');
    // The range's test id sits on a box-less span around the picker, which drops it.
    expect(range.getAttribute('data-testid')).toBe('thing-range');
    expect(getComputedStyle(range).display).toBe('contents');
    expect(range.querySelector('.el-range-editor')?.querySelectorAll('input')).toHaveLength(2);
  });

  it('words the fields with the labels it is given', () => {
    const { wrapper } = harness();
    const search = wrapper.get<HTMLInputElement>('input[data-testid="thing-search"]').element;
    expect(search.placeholder).toBe('Search it');
    expect(search.getAttribute('aria-label')).toBe('Search it');
    const dayInputs = wrapper.findAll<HTMLInputElement>('.el-range-input');
    expect(dayInputs.map((i) => i.element.placeholder)).toEqual(['Since', 'Until']);
    expect(wrapper.findAll('input.el-range-input[aria-label="Which days"]')).toHaveLength(2);
  });

  it('writes the search and the picked days to their v-models', async () => {
    const { wrapper, values } = harness();
    await wrapper.get('input[data-testid="thing-search"]').setValue('disk full');
    const days: [Date, Date] = [new Date(2026, 10, 1), new Date(2026, 10, 3)];
    wrapper.getComponent(ElDatePicker).vm.$emit('update:modelValue', days);
    await settle();
    expect(values).toEqual({ q: 'disk full', range: days });
  });
});

describe('historyQuery', () => {
  it('leaves out what is unset, and a search of only spaces', () => {
    expect(historyQuery(emptyHistoryFilters())).toEqual({
      q: undefined,
      from: undefined,
      to: undefined,
    });
    expect(historyQuery({ q: '   ', range: null }).q).toBeUndefined();
  });

  it('trims the search and sends the picked local days from their start to their very end', () => {
    const query = historyQuery({
      q: '  disk full ',
      range: [new Date(2026, 10, 1, 15, 30), new Date(2026, 10, 3)],
    });
    expect(query).toEqual({
      q: 'disk full',
      from: new Date(2026, 10, 1, 15, 30).toISOString(),
      to: new Date(2026, 10, 3, 23, 59, 59, 999).toISOString(),
    });
  });

  it('gives a fresh set of empty filters each time', () => {
    const first = emptyHistoryFilters();
    first.q = 'changed';
    expect(emptyHistoryFilters()).toEqual({ q: '', range: null });
  });
});
