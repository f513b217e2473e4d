import 'element-plus/dist/index.css';
import 'element-plus/theme-chalk/dark/css-vars.css';
import './styles.css';

import ElementPlus from 'element-plus';
import { createPinia } from 'pinia';
import { createApp } from 'vue';

import App from './App.vue';
import { createAppI18n } from './i18n';
import { openMessagesFromNotifications } from './lib/desktop-bridge';
import { followSystemTheme } from './lib/theme';
import {
  createAppRouter,
  followStandingOnForbidden,
  redirectToSignInOnUnauthorized,
} from './router';

const app = createApp(App);
const pinia = createPinia();
const i18n = createAppI18n();
const router = createAppRouter();

app.use(pinia).use(i18n).use(router).use(ElementPlus);

redirectToSignInOnUnauthorized(router);
followStandingOnForbidden(router);
openMessagesFromNotifications(router);

document.documentElement.lang = i18n.global.locale.value;
followSystemTheme();

app.mount('#app');
