/**
 * contract-model/generated-files.ts in the browser build: no project on disk to find generated/ in. The paths only
 * name the files (the contracts themselves are bundled, msw-browser.ts).
 */
export const generatedPath = (...segments: string[]): string => ['generated', ...segments].join('/');
export const changelogPath = 'CHANGELOG.md';
