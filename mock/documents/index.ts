export * from './pdf.js';
export * from './signed-url.js';
