// Builds the page into dist/ with esbuild: one bundle (React, @langchain/react and their
// dependencies, from node_modules as package-lock.json pins them), no CDN at run time.
// `node build.mjs [OUTDIR]` (default dist/, which the agent's webapp.py serves at /cards/).
import { build } from "esbuild";
import { copyFile, mkdir } from "node:fs/promises";
import { join } from "node:path";

const outdir = process.argv[2] ?? "dist";
await mkdir(outdir, { recursive: true });
await build({
  entryPoints: ["src/main.jsx"],
  bundle: true,
  outfile: join(outdir, "app.js"),
  format: "iife",
  platform: "browser",
  target: "es2022",
  jsx: "automatic",
  minify: true,
  sourcemap: true,
  define: { "process.env.NODE_ENV": '"production"' },
  logLevel: "warning",
});
for (const file of ["index.html", "style.css"]) await copyFile(file, join(outdir, file));
console.log(`built ${outdir}/ (under \`langgraph dev\` in agent/: http://127.0.0.1:2024/cards/)`);
