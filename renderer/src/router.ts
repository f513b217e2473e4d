import {
  createRouter,
  createWebHistory,
  type RouteRecordRaw,
  type Router,
  type RouterHistory,
} from 'vue-router';

import { onForbidden, onUnauthorized } from './api/http-client';
import { previewKeyOfHash } from './api/public-api';
import { noteRedirect } from './lib/redirect-notice';
import { PAGE_ROLES } from './lib/roles';
import { useSessionStore } from './stores/session-store';

/** The console's pages; every page except sign-in, invites and share-link previews needs a session. */
export const routes: RouteRecordRaw[] = [
  {
    // A shared hosted message, for anyone with the link: no console around it, no session.
    path: '/preview/:key',
    name: 'preview',
    component: () => import('./pages/PreviewPage.vue'),
    meta: { anonymous: true },
  },
  {
    path: '/sign-in',
    name: 'sign-in',
    component: () => import('./pages/SignInPage.vue'),
    meta: { public: true },
  },
  {
    // An invite link: whoever opens it sets the account's password, signed in or not.
    path: '/invite',
    name: 'invite',
    component: () => import('./pages/InvitePage.vue'),
    meta: { anonymous: true },
  },
  {
    path: '/',
    component: () => import('./layouts/ConsoleLayout.vue'),
    children: [
      { path: '', name: 'dashboard', component: () => import('./pages/DashboardPage.vue') },
      { path: 'channels', name: 'channels', component: () => import('./pages/ChannelsPage.vue') },
      // One page for both kinds of source; keyed by route name in ConsoleLayout, so going from
      // one to the other starts afresh.
      {
        path: 'tasks',
        name: 'tasks',
        component: () => import('./pages/SourcesPage.vue'),
        props: { kind: 'task' },
        meta: { remount: true },
      },
      {
        path: 'templates',
        name: 'templates',
        component: () => import('./pages/SourcesPage.vue'),
        props: { kind: 'template' },
        meta: { remount: true },
      },
      {
        path: 'schedules',
        name: 'schedules',
        component: () => import('./pages/SchedulesPage.vue'),
      },
      { path: 'logs', name: 'logs', component: () => import('./pages/LogsPage.vue') },
      { path: 'logs/:id(\\d+)', name: 'log', component: () => import('./pages/LogsPage.vue') },
      { path: 'messages', name: 'messages', component: () => import('./pages/MessagesPage.vue') },
      {
        path: 'messages/:id(\\d+)',
        name: 'message',
        component: () => import('./pages/MessagesPage.vue'),
      },
      { path: 'settings', name: 'settings', component: () => import('./pages/SettingsPage.vue') },
      { path: 'users', name: 'users', component: () => import('./pages/UsersPage.vue') },
      { path: 'audit', name: 'audit', component: () => import('./pages/AuditPage.vue') },
      { path: 'account', name: 'account', component: () => import('./pages/AccountPage.vue') },
    ],
  },
  { path: '/:pathMatch(.*)*', redirect: '/' },
];

/** Builds the router; tests pass a memory history. */
export function createAppRouter(history: RouterHistory = createWebHistory('/')): Router {
  const router = createRouter({ history, routes });

  router.beforeEach(async (to) => {
    // Message Nest's link form (/#/preview/<key>) opens the same page.
    const hashKey = previewKeyOfHash(to.hash);
    if (hashKey !== null) return { name: 'preview', params: { key: hashKey }, replace: true };
    if (to.meta.anonymous) return true;
    const session = useSessionStore();
    if (!session.restored) {
      try {
        await session.restore();
      } catch {
        // Server unreachable: the sign-in page shows the error and a retry.
        return to.meta.public ? true : { name: 'sign-in', query: { redirect: to.fullPath } };
      }
    }
    if (to.meta.public) {
      return session.signedIn && !session.setupRequired ? { name: 'dashboard' } : true;
    }
    if (!session.signedIn) {
      return { name: 'sign-in', query: to.fullPath === '/' ? {} : { redirect: to.fullPath } };
    }
    // The administrator requires two-factor: until it is set up, the server answers nothing
    // else, so the Account page is the only one that works.
    if (session.mustEnrol && to.name !== 'account') {
      noteRedirect({ kind: 'enrol', landed: 'account' });
      return { name: 'account' };
    }
    // A page the role cannot use (a bookmark, an old link) falls back to the dashboard, which
    // says why.
    const need = PAGE_ROLES[String(to.name ?? '')];
    if (need && !session.can(need) && to.name !== 'dashboard') {
      noteRedirect({
        kind: 'role',
        page: String(to.name),
        need,
        role: session.role,
        landed: 'dashboard',
      });
      return { name: 'dashboard' };
    }
    return true;
  });

  return router;
}

/**
 * Sends the user to sign-in whenever a call meets an expired session (401), with the page
 * they were on as the place to come back to.
 */
export function redirectToSignInOnUnauthorized(router: Router): void {
  onUnauthorized(() => {
    useSessionStore().expire();
    const current = router.currentRoute.value;
    if (current.name !== 'sign-in') {
      void router.replace({ name: 'sign-in', query: { redirect: current.fullPath } });
    }
  });
}

/**
 * When a call is refused (403) the person's role or two-factor standing may have changed in
 * another window: the user is read again, and the guard then sends them where they may be
 * (Account to enrol, or the dashboard for a page their role lost).
 */
export function followStandingOnForbidden(router: Router): void {
  let checking = false;
  onForbidden(() => {
    if (checking) return;
    checking = true;
    const session = useSessionStore();
    void session
      .refreshUser()
      .then(() => {
        const current = router.currentRoute.value;
        const need = PAGE_ROLES[String(current.name ?? '')];
        const stillAllowed = !session.mustEnrol && (!need || session.can(need));
        if (!stillAllowed) return router.replace({ path: current.fullPath, force: true });
      })
      .catch(() => undefined)
      .finally(() => (checking = false));
  });
}

declare module 'vue-router' {
  interface RouteMeta {
    public?: boolean;
    /** Open to anyone, signed in or not (no session is looked up). */
    anonymous?: boolean;
    /** A page that other routes render too: made anew on entering this route. */
    remount?: boolean;
  }
}
