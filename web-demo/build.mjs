// Build the static demo into web-demo/dist/: the page (src/), the example gallery (examples/)
// and grail's JS package (bindings/wasm/pkg/, built by scripts/deps-wasm.sh) under dist/grail/,
// with the package's WebAssembly module and its glue replaced by the demo's smaller build
// (bindings/wasm/pkg-demo/: only what src/grail-api.mjs calls, built for size).
// No bundler: the browser loads the ES modules as they are.
//   node web-demo/build.mjs        build (always: it is a copy, well under a second)
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const pkg = join(here, '..', 'bindings', 'wasm', 'pkg');
const pkgDemo = join(here, '..', 'bindings', 'wasm', 'pkg-demo');
const dist = join(here, 'dist');

// What the browser needs of the package (web.mjs imports grail.mjs and grail_wasm.js), and of
// the demo's build: the module and wasm-bindgen's glue for its exports.
const PKG_FILES = ['web.mjs', 'grail.mjs', 'index.d.ts', 'package.json'];
const DEMO_FILES = ['grail_wasm.js', 'grail_wasm_bg.wasm'];

const missing = [
    ...PKG_FILES.filter((f) => !existsSync(join(pkg, f))).map((f) => `pkg/${f}`),
    ...DEMO_FILES.filter((f) => !existsSync(join(pkgDemo, f))).map((f) => `pkg-demo/${f}`),
];
if (missing.length) {
    console.error(`web-demo: grail's JS package is not built (missing ${missing.join(', ')} in bindings/wasm).`);
    console.error('web-demo: run `bash scripts/deps-wasm.sh` first.');
    process.exit(1);
}

// The manifest must name existing examples, each once.
const manifest = JSON.parse(readFileSync(join(here, 'examples', 'manifest.json'), 'utf8'));
const ids = new Set();
for (const ex of manifest.examples) {
    if (ids.has(ex.id)) throw new Error(`examples/manifest.json: duplicate id ${ex.id}`);
    ids.add(ex.id);
    if (!existsSync(join(here, 'examples', ex.file))) throw new Error(`examples/manifest.json: ${ex.file} does not exist`);
}

rmSync(dist, { recursive: true, force: true });
mkdirSync(join(dist, 'grail'), { recursive: true });
mkdirSync(join(dist, 'examples'), { recursive: true });
cpSync(join(here, 'src'), dist, { recursive: true });
for (const f of PKG_FILES) cpSync(join(pkg, f), join(dist, 'grail', f));
for (const f of DEMO_FILES) cpSync(join(pkgDemo, f), join(dist, 'grail', f));
for (const f of readdirSync(join(here, 'examples'))) cpSync(join(here, 'examples', f), join(dist, 'examples', f));
const version = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')).version;
writeFileSync(join(dist, 'build.json'), JSON.stringify({ grail: version, examples: manifest.examples.length }) + '\n');
console.log(`web-demo: built ${dist} (grail ${version}, ${manifest.examples.length} examples)`);
