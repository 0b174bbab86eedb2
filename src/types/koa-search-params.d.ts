// Koa's query-string parser and writer (koa/lib/search-params.js, reachable through Koa's
// package exports), which has no types of its own.
declare module 'koa/lib/search-params.js' {
  const searchParams: {
    parse(text: string): Record<string, string | string[]>;
    stringify(query: object): string;
  };
  export default searchParams;
}
