import { afterEach, describe, expect, it, vi } from 'vitest';
import { defineComponent, h, reactive } from 'vue';

import { ApiError } from '../../renderer/src/api/http-client';
import ListPage from '../../renderer/src/components/ListPage.vue';
import { usePagedList, type PagedAnswer } from '../../renderer/src/lib/use-paged-list';
import { mountWithApp, settle } from './helpers/mount';

/** A list page as the console's are written: a usePagedList made reactive, shown by ListPage. */
function listPage(
  fetchPage: (query: { page: number; pageSize: number; q: string }) => Promise<PagedAnswer<string>>,
  props: { pager?: 'auto' | 'counted' | 'none'; refresh?: boolean } = {},
) {
  return defineComponent({
    setup() {
      const list = reactive(
        usePagedList({
          filters: { q: '' },
          fetchPage: ({ filters, page, pageSize }) => fetchPage({ page, pageSize, q: filters.q }),
        }),
      );
      return () =>
        h(
          ListPage,
          {
            name: 'things',
            title: 'Things',
            list,
            emptyText: 'Nothing yet',
            testid: 'thing',
            pager: props.pager ?? 'auto',
            refresh: props.refresh ?? false,
          },
          {
            toolbar: () =>
              h('input', {
                'data-testid': 'thing-filter',
                value: list.filters.q,
                onInput: (e: Event) => (list.filters.q = (e.target as HTMLInputElement).value),
              }),
            default: () =>
              h(
                'ul',
                { 'data-testid': 'thing-list' },
                list.items.map((item) => h('li', { key: item }, item)),
              ),
          },
        );
    },
  });
}

afterEach(() => {
  document.body.innerHTML = '';
});

describe('ListPage', () => {
  it('ListPage loads the list when the page mounts and shows it under the title', async () => {
    const fetchPage = vi.fn(async () => ({ items: ['a', 'b'], total: 2 }));

    const { wrapper } = mountWithApp(listPage(fetchPage));
    await settle();

    expect(fetchPage).toHaveBeenCalledTimes(1);
    expect(fetchPage).toHaveBeenCalledWith({ page: 1, pageSize: 20, q: '' });
    expect(wrapper.get('[data-testid="page-things"] h1').text()).toBe('Things');
    expect(wrapper.get('[data-testid="thing-list"]').text()).toBe('ab');
    expect(wrapper.find('[data-testid="page-empty"]').exists()).toBe(false);
    wrapper.unmount();
  });

  it('ListPage shows a failed load in PageState with the server msg, and Retry loads again', async () => {
    let fail = true;
    const fetchPage = vi.fn(async () => {
      if (fail) throw new ApiError(503, '数据库忙，请稍后再试');
      return { items: ['back'], total: 1 };
    });
    const { wrapper } = mountWithApp(listPage(fetchPage));
    await settle();
    expect(wrapper.get('[data-testid="page-error"]').text()).toContain('数据库忙，请稍后再试');
    expect(wrapper.find('[data-testid="thing-list"]').exists()).toBe(false);

    fail = false;
    await wrapper.get('[data-testid="page-retry"]').trigger('click');
    await settle();

    expect(fetchPage).toHaveBeenCalledTimes(2);
    expect(wrapper.find('[data-testid="page-error"]').exists()).toBe(false);
    expect(wrapper.get('[data-testid="thing-list"]').text()).toBe('back');
    wrapper.unmount();
  });

  it('ListPage says the page’s empty text when nothing exists, and shows the table when a filter matches nothing', async () => {
    vi.useFakeTimers();
    try {
      const fetchPage = vi.fn(async () => ({ items: [] as string[], total: 0 }));
      const { wrapper } = mountWithApp(listPage(fetchPage));
      await vi.runOnlyPendingTimersAsync();
      expect(wrapper.get('[data-testid="page-empty"]').text()).toContain('Nothing yet');

      await wrapper.get('[data-testid="thing-filter"]').setValue('zzz');
      await vi.runOnlyPendingTimersAsync();

      expect(fetchPage).toHaveBeenLastCalledWith({ page: 1, pageSize: 20, q: 'zzz' });
      expect(wrapper.find('[data-testid="page-empty"]').exists()).toBe(false);
      expect(wrapper.find('[data-testid="thing-list"]').exists()).toBe(true);
      wrapper.unmount();
    } finally {
      vi.useRealTimers();
    }
  });

  it('ListPage shows the auto pager only once there is a second page, and loads the page picked', async () => {
    const one = mountWithApp(listPage(async () => ({ items: ['a'], total: 20 })));
    await settle();
    expect(one.wrapper.find('[data-testid="thing-pagination"]').exists()).toBe(false);
    one.wrapper.unmount();

    const fetchPage = vi.fn(async ({ page }: { page: number }) => ({
      items: [`page ${page}`],
      total: 45,
    }));
    const { wrapper } = mountWithApp(listPage(fetchPage));
    await settle();
    const pager = wrapper.get('[data-testid="thing-pagination"]');
    expect(pager.text()).toContain('45');

    await pager.get('.el-pager li:nth-child(3)').trigger('click');
    await settle();

    expect(fetchPage).toHaveBeenLastCalledWith({ page: 3, pageSize: 20, q: '' });
    expect(wrapper.get('[data-testid="thing-list"]').text()).toBe('page 3');
    wrapper.unmount();
  });

  it('ListPage’s counted pager always shows the total, capped totals with a plus', async () => {
    const fetchPage = async () => ({ items: ['a'], total: 10_000, totalIsCapped: true });

    const { wrapper } = mountWithApp(listPage(fetchPage, { pager: 'counted' }));
    await settle();

    expect(wrapper.get('[data-testid="thing-total"]').text()).toBe('Total 10,000+');
    wrapper.unmount();
  });

  it('ListPage’s Refresh button loads the list again', async () => {
    const fetchPage = vi.fn(async () => ({ items: ['a'], total: 1 }));
    const { wrapper } = mountWithApp(listPage(fetchPage, { refresh: true, pager: 'none' }));
    await settle();

    await wrapper.get('[data-testid="thing-refresh"]').trigger('click');
    await settle();

    expect(fetchPage).toHaveBeenCalledTimes(2);
    expect(wrapper.find('[data-testid="thing-pagination"]').exists()).toBe(false);
    wrapper.unmount();
  });
});
