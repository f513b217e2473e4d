import { fileURLToPath } from 'node:url';

import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The console bundle. Herald's server serves `renderer/dist` with a strict CSP
 * (script-src 'self', no eval), so the build must emit no inline scripts.
 */
export default defineConfig({
  root,
  base: '/',
  plugins: [vue()],
  define: {
    // vue-i18n feature flags: Composition API only, no devtools in production.
    __VUE_I18N_FULL_INSTALL__: true,
    __VUE_I18N_LEGACY_API__: false,
    __INTLIFY_PROD_DEVTOOLS__: false,
    __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: false,
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Vite would inline a small module-preload polyfill as a script; CSP forbids inline scripts.
    modulePreload: { polyfill: false },
    // Element Plus and ECharts are large by nature; the console is served from localhost/LAN.
    chunkSizeWarningLimit: 1500,
  },
  server: {
    port: 5173,
    proxy: {
      '/api': { target: 'http://127.0.0.1:8765', changeOrigin: false },
    },
  },
});
