// npm run lint: the import rules of src/ (docs/ARCHITECTURE.md). Imports point down: cli/ and
// http/ over domain/ over db/; the modules at the top of src/ (config, errors, validation, clock)
// under all of them. Tests and scripts may import anything.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: modules that can only be understood, loaded and tested together.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'domain-not-to-doors',
      severity: 'error',
      comment: 'The domain serves both doors; it must not know either.',
      from: { path: '^src/domain/' },
      to: { path: '^src/(http|cli)/' },
    },
    {
      name: 'db-not-upwards',
      severity: 'error',
      comment: 'src/db/ is the database seam below the domain: it never imports domain/, http/ or cli/.',
      from: { path: '^src/db/' },
      to: { path: '^src/(domain|http|cli)/' },
    },
    {
      name: 'http-not-to-cli',
      severity: 'error',
      comment: 'The HTTP door does not use the CLI (cli/ starts the daemon, not the other way round).',
      from: { path: '^src/http/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'shared-not-upwards',
      severity: 'error',
      comment: 'The modules at the top of src/ (config, errors, validation, clock) are used by every layer.',
      from: { path: '^src/[^/]+[.]ts$|^src/config/' },
      to: { path: '^src/(domain|db|http|cli)/' },
    },
    {
      name: 'access-changes-in-one-place',
      severity: 'error',
      comment:
        'A change of who may do what moves the access generation: only src/domain/access-changes.ts ' +
        '(and the database seam) may touch it, so no caller can forget it (docs/ARCHITECTURE.md).',
      from: { path: '^src/', pathNot: '^src/db/|^src/domain/access-changes[.]ts$' },
      to: { path: '^src/db/access-generation[.]ts$' },
    },
    {
      name: 'no-orphans',
      severity: 'error',
      comment: 'A module of src/ nothing imports: dead code, or an entry point missing from this list.',
      from: { orphan: true, path: '^src/', pathNot: '^src/cli/main[.]ts$' },
      to: {},
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to no file or package.',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'src-not-to-dev-dependency',
      severity: 'error',
      comment: 'The daemon and the CLI run without devDependencies (npm ci --omit=dev).',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'not-to-undeclared-package',
      severity: 'error',
      comment: 'A package that is not in package.json: it is there by chance, as a dependency of another.',
      from: {},
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // test/fixtures/openapi-client/ imports the client its test generates beside a copy of it.
    exclude: { path: '^(dist|coverage)/|^test/fixtures/openapi-client/' },
    // Type-only imports count too: a layer that needs another's types depends on it.
    tsPreCompilationDeps: true,
    // Resolves the '.js' specifiers of TypeScript ESM to the .ts files.
    tsConfig: { fileName: 'tsconfig.test.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
