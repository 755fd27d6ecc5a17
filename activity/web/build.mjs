// Builds the Activity's page into dist/: the bundle (src/main.js and the Discord SDK,
// minified), the style sheet, and the page itself. `make activity` runs it; the server
// serves dist/ (activity/app.py). Nothing here is fetched at build time but the packages
// the lock file pins, already installed by `npm ci`.
import { build } from "esbuild";
import { copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { gzipSync } from "node:zlib";

const here = new URL(".", import.meta.url);
const out = new URL("dist/", here);
await mkdir(out, { recursive: true });
await build({
  entryPoints: [new URL("src/main.js", here).pathname],
  bundle: true,
  minify: true,
  format: "iife",
  target: ["es2020"],
  outfile: new URL("app.js", out).pathname,
  legalComments: "none",
  logLevel: "warning",
});
await build({
  entryPoints: [new URL("src/app.css", here).pathname],
  bundle: true,
  minify: true,
  outfile: new URL("app.css", out).pathname,
  logLevel: "warning",
});
await copyFile(new URL("src/index.html", here), new URL("index.html", out));
// gzipped twins: the server sends them to a browser that takes gzip (aiohttp's FileResponse)
for (const name of ["app.js", "app.css"]) {
  const file = new URL(name, out);
  await writeFile(new URL(`${name}.gz`, out), gzipSync(await readFile(file), { level: 9 }));
}
