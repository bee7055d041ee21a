// The console's stylesheet is imported for its effect: the build (esbuild) bundles it into the page. TypeScript 7
// asks what a side-effect import's module is (TS2882); a stylesheet exports nothing.
declare module '*.css';
