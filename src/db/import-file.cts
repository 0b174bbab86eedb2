// import() of a file the program loads while it runs: the migrations. CommonJS on purpose:
// bin/archivectl runs the program bundled, compiled by vm.Script (src/load-bundle.ts), where
// import() has no loader to use. A module node loads itself has one, so the bundle requires
// this file instead of bundling it.
export function importFile(url: string): Promise<unknown> {
  return import(url);
}
