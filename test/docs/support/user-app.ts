import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pack, type PublishedPackage, publishedPackages, ROOT } from './packages.ts';

/**
 * What a user installs next to Floodgate to run every README snippet: the frameworks, the Redis
 * clients, prom-client and OpenTelemetry, and the types a TypeScript app has.
 */
export const THIRD_PARTY = [
  'express',
  'fastify',
  'hono',
  '@hono/node-server',
  'ioredis',
  'iovalkey',
  'redis',
  '@valkey/valkey-glide',
  'prom-client',
  '@opentelemetry/api',
  '@types/express',
  '@types/node',
  'koa',
  '@types/koa',
  '@nestjs/common',
  '@nestjs/core',
  '@nestjs/platform-express',
  'reflect-metadata',
  'rxjs',
];

/** A fresh app outside the monorepo with every package installed from its packed tarball. */
export interface UserApp {
  dir: string;
  packages: PublishedPackage[];
  /** Tarball of each package, by name. */
  tarballs: Record<string, string>;
}

/** The range the workspace itself asks for, from the first workspace manifest that names the package. */
function workspaceRange(name: string): string {
  const manifests = ['packages', 'examples']
    .flatMap((dir) => readdirSync(join(ROOT, dir)).map((entry) => join(ROOT, dir, entry, 'package.json')))
    .concat([join(ROOT, 'test', 'package.json'), join(ROOT, 'package.json')])
    .filter(existsSync);
  for (const path of manifests) {
    const manifest = JSON.parse(readFileSync(path, 'utf8'));
    for (const field of ['dependencies', 'devDependencies']) {
      const range = manifest[field]?.[name];
      if (typeof range === 'string' && !range.startsWith('workspace:') && !range.startsWith('npm:')) return range;
    }
  }
  throw new Error(`no workspace package depends on ${name}: add it to one before a README uses it`);
}

/**
 * Every third-party package the monorepo's lockfile holds at exactly one version, pinned to it, so
 * the user app runs the versions the workspace was tested with and most of its install comes from
 * the store the workspace install filled. The rest (packages the lockfile holds at several
 * versions, which resolve afresh) comes from the registry.
 */
function lockedVersions(): Record<string, string> {
  const lockfile = readFileSync(join(ROOT, 'pnpm-lock.yaml'), 'utf8');
  const sections = lockfile.split(/^packages:$/m);
  const packages = (sections.at(-1) ?? '').split(/^snapshots:$/m)[0] ?? '';
  const versions = new Map<string, Set<string>>();
  for (const match of packages.matchAll(/^ {2}'?((?:@[^@/\s]+\/)?[^@\s']+)@([^'(:\s]+)'?:/gm)) {
    const [, name = '', version = ''] = match;
    if (!versions.has(name)) versions.set(name, new Set());
    versions.get(name)?.add(version);
  }
  const pinned: Record<string, string> = {};
  for (const [name, set] of versions)
    if (set.size === 1 && !name.startsWith('@floodgate/')) pinned[name] = [...set][0] ?? '';
  return pinned;
}

function storePath(): string {
  return execFileSync('pnpm', ['store', 'path'], { cwd: ROOT, encoding: 'utf8' }).trim();
}

function install(dir: string, tarballs: Record<string, string>): void {
  const dependencies: Record<string, string> = {};
  for (const [name, tarball] of Object.entries(tarballs)) dependencies[name] = `file:${tarball}`;
  for (const name of THIRD_PARTY) dependencies[name] = workspaceRange(name);
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'floodgate-user-app', private: true, type: 'module', dependencies }, null, 2)}\n`,
  );
  // The packages depend on each other by version (`@floodgate/core: ^0.1.0`): point those at the tarballs too.
  const overrides = lockedVersions();
  for (const [name, tarball] of Object.entries(tarballs)) overrides[name] = `file:${tarball}`;
  const yaml = Object.entries(overrides)
    .map(([name, version]) => `  ${JSON.stringify(name)}: ${JSON.stringify(version)}`)
    .join('\n');
  writeFileSync(join(dir, 'pnpm-workspace.yaml'), `overrides:\n${yaml}\n`);
  // --prefer-offline, never --offline: on a machine whose store lacks a package (any fresh one), the
  // registry supplies it.
  execFileSync('pnpm', ['install', '--prefer-offline', '--ignore-scripts', '--config.confirm-modules-purge=false'], {
    cwd: dir,
    stdio: 'pipe',
    env: { ...process.env, CI: 'true' },
  });
}

/**
 * Packs every published package (each `prepack` builds what is stale) and installs the tarballs in
 * a fresh directory under the system's temp dir, outside the monorepo so nothing resolves through
 * its node_modules. The install is reused while the tarballs are byte for byte the same (pnpm packs
 * deterministically) and the package store is the same one, so the docs suite pays for it once per
 * run; a run on another store (a fresh machine, or .ci/run's empty one) installs afresh.
 */
export function userApp(): UserApp {
  const packages = publishedPackages();
  const packed = mkdtempSync(join(tmpdir(), 'floodgate-pack-'));
  const hash = createHash('sha256');
  const built: Record<string, string> = {};
  for (const pkg of packages) {
    built[pkg.name] = pack(pkg, packed);
    hash.update(pkg.name).update(readFileSync(built[pkg.name] as string));
  }
  hash.update(THIRD_PARTY.join(',')).update(storePath());
  // One name per checkout, so that cleaning up after this one never removes another's install.
  const checkout = createHash('sha256').update(ROOT).digest('hex').slice(0, 8);
  const dir = join(tmpdir(), `floodgate-user-app-${checkout}-${hash.digest('hex').slice(0, 16)}`);
  const tarballs = Object.fromEntries(packages.map((pkg) => [pkg.name, join(dir, 'tarballs', `${pkg.dir}.tgz`)]));
  if (!existsSync(join(dir, '.installed'))) {
    const staging = `${dir}.${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    cpSync(packed, join(staging, 'tarballs'), { recursive: true });
    // Relative paths: the directory is renamed once installed.
    install(staging, Object.fromEntries(packages.map((pkg) => [pkg.name, `./tarballs/${pkg.dir}.tgz`])));
    writeFileSync(join(staging, '.installed'), new Date().toISOString());
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
    const mine = new RegExp(`^floodgate-user-app-${checkout}-[0-9a-f]{16}$`);
    for (const old of readdirSync(tmpdir()).filter((name) => mine.test(name))) {
      if (join(tmpdir(), old) !== dir) rmSync(join(tmpdir(), old), { recursive: true, force: true });
    }
  }
  rmSync(packed, { recursive: true, force: true });
  return { dir, packages, tarballs };
}
