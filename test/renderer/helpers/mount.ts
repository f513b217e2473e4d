import { mount, type ComponentMountingOptions } from '@vue/test-utils';
import ElementPlus from 'element-plus';
import { createPinia, setActivePinia, type Pinia } from 'pinia';
import type { Component } from 'vue';
import { createMemoryHistory, type Router } from 'vue-router';

import { createAppI18n, type Locale } from '../../../renderer/src/i18n';
import { createAppRouter } from '../../../renderer/src/router';
import { useSessionStore } from '../../../renderer/src/stores/session-store';

// Installing the router navigates to the dashboard, a page loaded lazily, whose chart loads
// ECharts lazily too (SendsChart.vue), and ECharts reads `document` while it is evaluated. Loaded
// here, both are evaluated inside the first test file's environment; started by a navigation late
// in a file, they could finish after that environment was torn down (unhandled rejections).
await import('../../../renderer/src/pages/DashboardPage.vue');
await import('../../../renderer/src/components/sends-chart-echarts');

export interface MountContext {
  pinia: Pinia;
  router: Router;
  i18n: ReturnType<typeof createAppI18n>;
}

/** The app's plugins (Pinia, i18n, router on memory history, Element Plus) for one test. */
export function createContext(locale: Locale = 'en'): MountContext {
  const pinia = createPinia();
  setActivePinia(pinia);
  const i18n = createAppI18n(locale);
  // Installing the router navigates at once; the guard would ask the server who is signed in.
  // Component tests are about the component, so the session counts as already checked.
  useSessionStore(pinia).restored = true;
  const router = createAppRouter(createMemoryHistory());
  return { pinia, router, i18n };
}

/** The app's plugins with a person of `role` signed in (the console hides what a role cannot do). */
export function signedInContext(
  role: 'admin' | 'editor' | 'viewer' = 'admin',
  locale: Locale = 'en',
): MountContext {
  const ctx = createContext(locale);
  useSessionStore(ctx.pinia).user = { id: 1, username: `the-${role}`, role, twoFactor: 'off' };
  return ctx;
}

/** Mounts a component with the app's plugins, attached to the document so dialogs render. */
export function mountWithApp<C extends Component>(
  component: C,
  options: ComponentMountingOptions<C> = {},
  ctx: MountContext = createContext(),
) {
  const wrapper = mount(component, {
    attachTo: document.body,
    ...options,
    global: {
      ...(options.global ?? {}),
      plugins: [ctx.pinia, ctx.i18n, ctx.router, ElementPlus, ...(options.global?.plugins ?? [])],
    },
  } as ComponentMountingOptions<C>);
  return { wrapper, ...ctx };
}

/** Lets pending promises and Vue's scheduler settle. */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await new Promise((r) => setTimeout(r, 0));
  }
}
