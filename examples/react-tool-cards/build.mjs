// Builds the page into dist/ with esbuild: one bundle (React, @langchain/react and their
// dependencies, from node_modules as package-lock.json pins them), no CDN at run time.
import { build } from "esbuild";
import { copyFile, mkdir } from "node:fs/promises";

await mkdir("dist", { recursive: true });
await build({
  entryPoints: ["src/main.jsx"],
  bundle: true,
  outfile: "dist/app.js",
  format: "iife",
  platform: "browser",
  target: "es2022",
  jsx: "automatic",
  minify: true,
  sourcemap: true,
  define: { "process.env.NODE_ENV": '"production"' },
  logLevel: "warning",
});
await copyFile("index.html", "dist/index.html");
await copyFile("style.css", "dist/style.css");
console.log("built dist/ (open http://127.0.0.1:2024/cards/ under `langgraph dev`)");
