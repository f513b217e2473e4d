import { fileURLToPath } from 'node:url';

import vue from '@vitejs/plugin-vue';
import { ElementPlusResolver } from 'unplugin-vue-components/resolvers';
import Components from 'unplugin-vue-components/vite';
import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';

import { precompressAssets } from '../scripts/precompress-assets.ts';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The console bundle. Herald's server serves `renderer/dist` with a strict CSP
 * (script-src 'self', no eval), so the build must emit no inline scripts.
 */
export default defineConfig({
  root,
  base: '/',
  plugins: [
    vue(),
    // Element Plus on demand: each <el-*> a template uses is imported where it is used, so a
    // page's chunk carries its own components and the first load only what the shell needs
    // (the whole library was 700 KB of the main chunk). Its CSS stays whole, imported first in
    // main.ts: per-component CSS would load after the console's own and win every tie with it
    // (docs/architecture.md, "The console's files"). Local components are imported by hand.
    Components({
      resolvers: [ElementPlusResolver({ importStyle: false })],
      dirs: [],
      dts: false,
    }),
    // The installable reader (docs/reader.md): the web app manifest and the service worker
    // (src/sw.ts, built to /sw.js), registered by the console itself (lib/web-push.ts), since
    // the plugin's register script would be inline or one more request.
    VitePWA({
      strategies: 'injectManifest',
      srcDir: 'src',
      filename: 'sw.ts',
      injectRegister: false,
      manifest: {
        name: 'Herald',
        short_name: 'Herald',
        description: 'Herald: your messages',
        // The reader; the router is in history mode, so this is a path, not a hash.
        start_url: '/messages',
        scope: '/',
        display: 'standalone',
        background_color: '#ffffff',
        theme_color: '#409eff',
        icons: [
          { src: '/icon-192.png', sizes: '192x192', type: 'image/png' },
          { src: '/icon-512.png', sizes: '512x512', type: 'image/png' },
          {
            src: '/icon-maskable-512.png',
            sizes: '512x512',
            type: 'image/png',
            purpose: 'maskable',
          },
        ],
      },
      injectManifest: {
        // The shell alone; chunks are kept as they load (src/sw.ts says why).
        globPatterns: ['index.html', 'favicon.svg', 'apple-touch-icon.png'],
      },
    }),
    precompressAssets(),
  ],
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
    // ECharts is large by nature; it has a chunk of its own that only the dashboard loads.
    chunkSizeWarningLimit: 600,
    rolldownOptions: {
      output: {
        // Vite's own names, spelt out because the server relies on them: a file under assets/
        // named after its content's hash is cached for a year (server/api/console-files/).
        entryFileNames: 'assets/[name]-[hash:8].js',
        chunkFileNames: 'assets/[name]-[hash:8].js',
        assetFileNames: 'assets/[name]-[hash:8][extname]',
      },
    },
  },
  server: {
    port: 5173,
    proxy: {
      '/api': { target: 'http://127.0.0.1:8765', changeOrigin: false },
    },
  },
});
