/**
 * Layer rules of ARCHITECTURE.md, checked on every `npm test`
 * (in the manner of Sairyss/domain-driven-hexagon's .dependency-cruiser.js).
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'domain/ imports nothing but domain/: no libraries, no Node built-ins, no outer layer.',
      severity: 'error',
      from: { path: '^domain/' },
      to: { pathNot: '^domain/' },
    },
    {
      name: 'application-points-inward',
      comment: 'application/ depends on domain/ and its own ports only; adapters implement the ports.',
      severity: 'error',
      from: { path: '^application/' },
      to: { path: '^(infrastructure|interfaces|workflows)/' },
    },
    {
      name: 'infrastructure-not-on-edges',
      comment: 'adapters never reach into the REST/tRPC/CLI edges.',
      severity: 'error',
      from: { path: '^infrastructure/' },
      to: { path: '^interfaces/' },
    },
    {
      name: 'edges-use-application',
      comment: 'REST and tRPC talk to use cases; only the composition root and CLI entry points wire adapters.',
      severity: 'error',
      from: { path: '^interfaces/(rest|trpc|http|schemas)/' },
      to: { path: '^infrastructure/' },
    },
    {
      name: 'workflows-are-deterministic',
      comment:
        'Temporal workflow code runs in a sandbox and is replayed: only @temporalio/workflow, other workflow files, domain/ and type-only imports.',
      severity: 'error',
      // Everything under workflows/ but the activities runs inside the workflow sandbox.
      from: { path: '^workflows/', pathNot: '\\.activities\\.ts$' },
      to: {
        // Activities may be named only in type-only imports: their code runs on the worker, outside the sandbox.
        pathNot: ['^workflows/(?!.*\\.activities\\.ts$)', '^domain/', '@temporalio/workflow', '@temporalio/common'],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'workflows-no-node-builtins',
      severity: 'error',
      // Everything under workflows/ but the activities runs inside the workflow sandbox.
      from: { path: '^workflows/', pathNot: '\\.activities\\.ts$' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'mustache-through-its-bounded-cache',
      comment: "mustache's default template cache grows without bound: use infrastructure/templates/bounded-mustache.ts.",
      severity: 'error',
      from: { pathNot: '^infrastructure/templates/bounded-mustache\\.ts$' },
      to: { path: 'node_modules/mustache/' },
    },
    {
      name: 'product-never-imports-scripts',
      comment: 'scripts/ (benchmarks, fuzzing, tools) drive the product from outside; nothing of the product depends on them.',
      severity: 'error',
      from: { path: '^(domain|application|infrastructure|workflows|interfaces)/' },
      to: { path: '^scripts/' },
    },
    {
      name: 'benchmarks-use-no-test-support',
      comment: 'A benchmark measures the product as it ships: test support (fakes, probes) stays out; generated fixtures may come in.',
      severity: 'error',
      from: { path: '^scripts/bench' },
      to: { path: '^test/', pathNot: '^test/fixtures/' },
    },
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
    { name: 'not-to-unresolvable', severity: 'error', from: {}, to: { couldNotResolve: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js', '.d.ts'] },
  },
};
