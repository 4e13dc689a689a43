// The import rules of the source packages, checked by `pnpm lint` (depcruise). Each folder's
// README.md under packages/core/src says the same in words; ARCHITECTURE.md draws the layers.
// Only packages/*/src is checked: tests may reach into any file they test.
const CORE = '^packages/core/src/';

/** A rule forbidding `from` to import anything of the core but the folders in `allowed`. */
function coreOnly(name, comment, folder, allowed, extra = {}) {
  return {
    name,
    comment,
    severity: 'error',
    from: { path: `${CORE}${folder}/` },
    to: { path: CORE, pathNot: `${CORE}(${[folder, ...allowed].join('|')})/`, ...extra },
  };
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import cycle makes load order matter and layers meaningless (this replaces madge --circular).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    coreOnly('base-imports-nothing', 'base/ is what everything leans on: it leans on nothing.', 'base', []),
    coreOnly(
      'algorithms-import-only-base',
      'An algorithm decides one key state; it knows nothing of keys, stores, limiters or HTTP.',
      'algorithms',
      ['base'],
    ),
    coreOnly('keys-import-only-base', 'Key functions turn a request into an identity, and need nothing else.', 'keys', [
      'base',
    ]),
    coreOnly(
      'store-knows-no-http',
      'A store decides layer calls: no requests, headers, limiter or resilience above it.',
      'store',
      ['base', 'algorithms'],
    ),
    coreOnly(
      'resilience-below-limiter',
      'Resilience wraps a store; it may name the Decision type its event hooks receive, nothing more of the limiter.',
      'resilience',
      ['base', 'algorithms', 'keys', 'store'],
      { dependencyTypesNot: ['type-only'] },
    ),
    coreOnly(
      'limiter-knows-no-http',
      'The limiter is framework- and HTTP-free: a request reaches it only as a key context.',
      'limiter',
      ['base', 'algorithms', 'keys', 'store', 'resilience', 'adaptive'],
    ),
    coreOnly(
      'adaptive-measures-only',
      'The adaptive controller measures this process: it may name the limiter types its options use (priority), nothing else.',
      'adaptive',
      ['base', 'limiter'],
      { dependencyTypesNot: ['type-only'] },
    ),
    {
      name: 'core-folders-not-entries',
      comment:
        'The entry points (index, store-kit, http-kit) are for users; a folder of the core imports the file it needs.',
      severity: 'error',
      from: { path: `${CORE}[^/]+/` },
      to: { path: `${CORE}(index|store-kit|http-kit)\\.ts$` },
    },
    {
      name: 'stores-know-no-http',
      comment:
        'A store package (Redis, Durable Object, regions) uses @floodgate/core and @floodgate/core/store, never the HTTP kit or a framework.',
      severity: 'error',
      from: { path: '^packages/(redis|cloudflare|regions)/src/' },
      to: {
        path: [
          `${CORE}(http-kit\\.ts|http/)`,
          '^packages/(express|fastify|hono|koa|nestjs)/',
          '(^|/)node_modules/(express|fastify|hono|koa|@nestjs)/',
        ],
      },
    },
    {
      name: 'adapters-use-public-core',
      comment:
        'An adapter imports only @floodgate/core and @floodgate/core/http (plus its framework): glue that another adapter would need belongs in the HTTP kit.',
      severity: 'error',
      from: { path: '^packages/(express|fastify|hono|koa|nestjs)/src/' },
      to: { path: '^packages/', pathNot: ['^packages/$1/', `${CORE}(index|http-kit)\\.ts$`] },
    },
    {
      name: 'adapters-use-only-their-framework',
      comment: 'Besides the core, an adapter depends on its framework alone.',
      severity: 'error',
      from: { path: '^packages/(express|fastify|hono|koa|nestjs)/src/' },
      to: {
        dependencyTypes: ['npm', 'npm-dev', 'npm-peer', 'npm-optional', 'npm-no-pkg', 'npm-unknown'],
        pathNot: 'node_modules/($1|fastify-plugin|@nestjs/(common|core))/',
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['(^|/)(dist|test|generated)/', '\\.test\\.ts$'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
