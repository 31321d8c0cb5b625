// Builds the dashboard into dist/dashboard, served by the api at /dashboard (§15).
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/dashboard/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../../dist/dashboard', import.meta.url)),
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
  },
  server: {
    // `npm run dashboard:dev`: the api runs on :3000 and the dev server forwards API calls to it.
    proxy: { '/api': 'http://localhost:3000' },
  },
});
