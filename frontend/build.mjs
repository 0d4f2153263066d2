// Build the browser bundles into runtime/static/js/ (committed: the runtime serves them with no
// Node at run time). `node build.mjs --check` builds in memory and fails when the committed
// files differ from what the sources give, naming the files.

import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const outdir = join(here, '..', 'runtime', 'static', 'js');
const check = process.argv.includes('--check');

const pages = readdirSync(join(here, 'src', 'pages'))
  .filter(name => name.endsWith('.js'))
  .map(name => join('src', 'pages', name));

const result = await esbuild.build({
  absWorkingDir: here,
  entryPoints: ['src/renderer.js', ...pages],
  outdir,
  outbase: 'src',
  entryNames: '[name]',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  legalComments: 'eof',
  logLevel: check ? 'warning' : 'info',
  write: !check,
  metafile: true,
});

function committedFiles(folder) {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter(entry => entry.isFile())
    .map(entry => join(entry.parentPath ?? entry.path, entry.name));
}

if (check) {
  const built = new Map(result.outputFiles.map(file => [file.path, file.text]));
  const committed = committedFiles(outdir);
  const stale = [
    ...[...built].filter(([path, text]) => {
      try {
        return readFileSync(path, 'utf8') !== text;
      } catch {
        return true;
      }
    }).map(([path]) => path),
    ...committed.filter(path => !built.has(path)),
  ];
  if (stale.length) {
    for (const path of stale) console.error(`${relative(process.cwd(), path)}: out of date`);
    console.error('The committed bundle differs from the sources: run `python3 dev.py frontend`.');
    process.exit(1);
  }
  console.log(`${built.size} bundle files match the sources`);
} else {
  // Drop files an earlier build wrote that this one did not (old chunk hashes).
  const written = new Set(Object.keys(result.metafile.outputs).map(path => join(here, path)));
  for (const path of committedFiles(outdir)) if (!written.has(path)) rmSync(path);
}
