// import() of a file the program loads while it runs: the migrations. CommonJS on purpose:
// bin/archivectl runs the program bundled and compiled from a V8 code cache
// (src/load-bundle.ts), and node 20 gives code compiled that way no loader for import().
// A module node loads itself has one, so the bundle requires this file instead of bundling it.
export function importFile(url: string): Promise<unknown> {
  return import(url);
}
