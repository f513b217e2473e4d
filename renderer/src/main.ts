import 'element-plus/dist/index.css';
import 'element-plus/theme-chalk/dark/css-vars.css';
import './styles.css';

import { ElLoading, ElMessage, ElMessageBox, ElNotification } from 'element-plus';
import { createPinia } from 'pinia';
import { createApp } from 'vue';

import App from './App.vue';
import { createAppI18n } from './i18n';
import { openMessagesFromNotifications } from './lib/desktop-bridge';
import { wordError } from './lib/error-wording';
import { setErrorWording } from './lib/feedback';
import { followSystemTheme } from './lib/theme';
import { openMessagesFromPushClicks, registerServiceWorker } from './lib/web-push';
import {
  createAppRouter,
  followStandingOnForbidden,
  redirectToSignInOnUnauthorized,
} from './router';

const app = createApp(App);
const pinia = createPinia();
const i18n = createAppI18n();
const router = createAppRouter();

app.use(pinia).use(i18n).use(router);
// Components come on demand (renderer/vite.config.ts); the services called from code are
// installed so they share the app's context, as the whole library's install did.
app.use(ElLoading).use(ElMessage).use(ElMessageBox).use(ElNotification);

redirectToSignInOnUnauthorized(router);
followStandingOnForbidden(router);
openMessagesFromNotifications(router);
openMessagesFromPushClicks(router);

document.documentElement.lang = i18n.global.locale.value;
followSystemTheme();
setErrorWording((msg) => wordError(msg, i18n.global.t));

app.mount('#app');
registerServiceWorker();
