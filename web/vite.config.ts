/// <reference types="vitest/config" />
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { type Plugin, defineConfig } from "vite";

// The build ships inside the Python package: `tfrobot serve` serves it at `/`.
const outDir = fileURLToPath(new URL("../src/tfrobotserver/static", import.meta.url));

/**
 * Swagger UI for the server's `/docs`, from npm's `swagger-ui-dist` into `assets/swagger/`: the docs
 * page loads it from the server itself, so it works offline and its CSP names no CDN.
 */
function swaggerUi(): Plugin {
  const dist = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  return {
    name: "tfrobot-swagger-ui",
    apply: "build",
    generateBundle() {
      for (const file of ["swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png", "LICENSE"]) {
        this.emitFile({ type: "asset", fileName: `assets/swagger/${file}`, source: readFileSync(join(dist, file)) });
      }
    },
  };
}

export default defineConfig({
  plugins: [react(), swaggerUi()],
  base: "/",
  build: { outDir, emptyOutDir: true, chunkSizeWarningLimit: 2000 },
  server: { proxy: { "/api": "http://127.0.0.1:8000" } },
  // CI shares two cores with servers, databases and Chromium: a DOM test that takes 5 s there is
  // slow, not broken, so the per-test limit is generous; each test still fails on a wrong answer.
  test: { testTimeout: 30_000, environment: "node", include: ["tests/**/*.test.ts", "tests/**/*.test.tsx"], setupFiles: ["tests/setup-dom.ts"] },
});
