import { execFileSync } from 'node:child_process';

/** Names of the files in a tarball, without the leading `package/`. */
export function tarballFiles(tarball: string): string[] {
  return execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((line) => line.replace(/^package\//, ''));
}

/** The package.json inside a tarball, as the registry would serve it. */
export function packedManifest(tarball: string): Record<string, unknown> {
  return JSON.parse(tarballText(tarball, 'package.json'));
}

function tarballText(tarball: string, file: string): string {
  return execFileSync('tar', ['xzf', tarball, '-O', `package/${file}`], { encoding: 'utf8', maxBuffer: 64 << 20 });
}

/** Every file an `exports` map points at. */
export function exportTargets(value: unknown): string[] {
  if (typeof value === 'string') return [value.replace(/^\.\//, '')];
  if (value === null || typeof value !== 'object') return [];
  return Object.values(value).flatMap(exportTargets);
}

/** Bare specifiers a built file imports or requires, as package names. */
export function bareImports(code: string): string[] {
  const found = [
    ...code
      .replace(/\/\*\*[\s\S]*?\*\//g, '')
      .matchAll(/(?:from\s*|import\s*\(\s*|require\s*\(\s*)["']([^"'./][^"']*)["']/g),
  ];
  return found.map(([, spec = '']) =>
    (spec.startsWith('@') ? spec.split('/').slice(0, 2) : spec.split('/').slice(0, 1)).join('/'),
  );
}

/**
 * What would make a packed package unusable once installed from the registry: a file its manifest
 * points at that is not in the tarball (an unbuilt dist/), a `workspace:` range that only the
 * monorepo can resolve, or a package its built code imports without declaring it (it works in the
 * monorepo only because pnpm linked it there). An empty list means none of these.
 */
export function tarballProblems(tarball: string): string[] {
  const files = tarballFiles(tarball);
  const manifest = packedManifest(tarball);
  const problems: string[] = [];
  for (const file of ['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.cjs', 'dist/index.d.ts']) {
    if (!files.includes(file)) problems.push(`missing ${file}`);
  }
  for (const target of exportTargets(manifest.exports)) {
    if (!files.includes(target)) problems.push(`exports points at ${target}, which is not packed`);
  }
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [name, range] of Object.entries((manifest[field] as Record<string, string> | undefined) ?? {})) {
      if (range.startsWith('workspace:')) problems.push(`${field}.${name} is ${range}`);
    }
  }
  const declared = new Set([
    manifest.name as string,
    ...Object.keys((manifest.dependencies as Record<string, string> | undefined) ?? {}),
    ...Object.keys((manifest.peerDependencies as Record<string, string> | undefined) ?? {}),
  ]);
  const built = files.filter((file) => file.startsWith('dist/') && /\.(c?js|d\.c?ts)$/.test(file));
  const imported = new Set(built.flatMap((file) => bareImports(tarballText(tarball, file))));
  for (const spec of imported) {
    if (!declared.has(spec) && !spec.startsWith('node:')) problems.push(`imports ${spec} without declaring it`);
  }
  return problems;
}
