import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { defineComponent, h, reactive, ref } from 'vue';

import { PHONE_QUERY, resetPhoneForTests } from '../../renderer/src/lib/use-phone';
import CardsListPage, { type Thing } from './fixtures/CardsListPage.vue';
import { mountWithApp, settle } from './helpers/mount';

const THINGS: Thing[] = [
  { id: 7, name: 'Backups', kind: 'disk', size: 12, note: 'nightly', unread: true },
  { id: 9, name: 'Mail relay', kind: 'smtp', size: 3, note: null, unread: false },
];

/** A window `width` px wide, as far as matchMedia answers the console's phone query. */
function windowOfWidth(width: number) {
  vi.stubGlobal('matchMedia', (query: string) => ({
    matches: query === PHONE_QUERY && width < 768,
    media: query,
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
  }));
  // usePhone() asks once per app; each test is a new window.
  resetPhoneForTests();
}

function mountPage(rows: Thing[], showSecret = false) {
  const opened: Thing[] = [];
  const edited: Thing[] = [];
  const list = reactive({
    loading: false,
    loaded: true,
    error: null,
    total: rows.length,
    filtered: true,
    load: () => undefined,
  });
  const secret = ref(showSecret);
  const Host = defineComponent({
    setup: () => () =>
      h(CardsListPage, {
        list,
        rows,
        showSecret: secret.value,
        onOpen: (thing: Thing) => opened.push(thing),
        onEdit: (thing: Thing) => edited.push(thing),
      }),
  });
  const { wrapper } = mountWithApp(Host);
  return { wrapper, opened, edited, secret };
}

beforeEach(() => windowOfWidth(390));

afterEach(() => {
  vi.unstubAllGlobals();
  resetPhoneForTests();
  document.body.innerHTML = '';
});

describe('ListCards (a list page on a phone)', () => {
  it('shows each row as a card made from the page’s columns: title, labelled fields, actions', async () => {
    const { wrapper } = mountPage(THINGS);
    await settle();

    const list = wrapper.get('[data-testid="thing-table"]');
    expect(list.attributes('data-mode')).toBe('cards');
    expect(wrapper.find('.el-table').exists()).toBe(false);
    const cards = wrapper.findAll('[data-testid="list-card"]');
    expect(cards).toHaveLength(2);

    const [first, second] = cards;
    expect(first.get('.list-card__title').text()).toBe('Backups');
    expect(first.find('.list-card__title .thing-name').exists()).toBe(true);
    const fields = (card: typeof first) =>
      card
        .findAll('.list-card__field')
        .map((field) => [field.get('dt').text(), field.get('dd').text()]);
    // The hidden ID is not shown; the formatter and the cell slot make the values.
    expect(fields(first)).toEqual([
      ['Kind', 'disk'],
      ['Size', '12 KB'],
      ['Note', 'nightly'],
    ]);
    // A cell that rendered nothing for this row leaves no empty line.
    expect(fields(second)).toEqual([
      ['Kind', 'smtp'],
      ['Size', '3 KB'],
    ]);
    expect(first.get('.list-card__actions [data-testid="thing-edit"]').text()).toBe('Edit');
    // The table's row class marks the card.
    expect(first.classes()).toContain('is-unread');
    expect(second.classes()).not.toContain('is-unread');
    wrapper.unmount();
  });

  it('follows the columns a page shows conditionally', async () => {
    const { wrapper, secret } = mountPage(THINGS);
    await settle();
    expect(wrapper.text()).not.toContain('Secret');

    secret.value = true;
    await settle();

    const labels = wrapper.findAll('[data-testid="list-card"]')[0].findAll('dt');
    expect(labels.map((dt) => dt.text())).toEqual(['Kind', 'Size', 'Note', 'Secret']);
    wrapper.unmount();
  });

  it('runs the table’s row click on a tap on the card, but not on a tap on its buttons', async () => {
    const { wrapper, opened, edited } = mountPage(THINGS);
    await settle();
    const second = wrapper.findAll('[data-testid="list-card"]')[1];

    await second.get('dd').trigger('click');
    expect(opened.map((t) => t.name)).toEqual(['Mail relay']);

    await second.get('[data-testid="thing-edit"]').trigger('click');
    expect(edited.map((t) => t.name)).toEqual(['Mail relay']);
    expect(opened).toHaveLength(1);
    wrapper.unmount();
  });

  it('says the table’s empty text when a filter matches nothing', async () => {
    const { wrapper } = mountPage([]);
    await settle();

    const list = wrapper.get('[data-testid="thing-table"]');
    expect(list.text()).toBe('No matches');
    expect(wrapper.findAll('[data-testid="list-card"]')).toHaveLength(0);
    wrapper.unmount();
  });

  it('keeps the table on a wider window', async () => {
    windowOfWidth(1024);
    const { wrapper } = mountPage(THINGS);
    await settle();

    expect(wrapper.find('[data-testid="list-card"]').exists()).toBe(false);
    expect(wrapper.get('[data-testid="thing-table"]').classes()).toContain('el-table');
    expect(wrapper.text()).toContain('Mail relay');
    wrapper.unmount();
  });
});
