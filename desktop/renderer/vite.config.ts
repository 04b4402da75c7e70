// Builds the console into dist/console (served by the daemon at `/`, loaded by the Electron app).
// No inline scripts or styles: the daemon's Content-Security-Policy allows only files of its origin.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../../dist/console', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
    rollupOptions: {
      output: {
        // the SQL editor and the charts load with the views that use them
        manualChunks: undefined,
      },
    },
  },
  server: { proxy: { '/api': 'http://127.0.0.1:8080' } },
});
