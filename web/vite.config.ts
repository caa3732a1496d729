/// <reference types="vitest/config" />
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The build ships inside the Python package: `tfrobot serve` serves it at `/`.
const outDir = fileURLToPath(new URL("../src/tfrobotserver/static", import.meta.url));

export default defineConfig({
  plugins: [react()],
  base: "/",
  build: { outDir, emptyOutDir: true, chunkSizeWarningLimit: 2000 },
  server: { proxy: { "/api": "http://127.0.0.1:8000" } },
  // CI shares two cores with servers, databases and Chromium: a DOM test that takes 5 s there is
  // slow, not broken, so the per-test limit is generous; each test still fails on a wrong answer.
  test: { testTimeout: 30_000, environment: "node", include: ["tests/**/*.test.ts", "tests/**/*.test.tsx"], setupFiles: ["tests/setup-dom.ts"] },
});
