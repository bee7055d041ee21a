/**
 * Redoc's "API docs by" badge shows a logo from Redocly's CDN: the docs' Content-Security-Policy blocks it, but
 * every page load then logs an error and makes a request that goes nowhere. The logo is written into the page
 * (`npm run generate`'s docs) or into Redoc's script (the live docs `npm run dev` serves) instead, as the word it
 * shows. Fails when the text no longer names the CDN's logo, so that a new Redoc that moved it is noticed here
 * rather than in the browser tests.
 */
const cdnLogos = ['https://cdn.redoc.ly/redoc/logo-mini-full.svg', 'https://cdn.redoc.ly/redoc/logo-mini.svg'];
const localLogo = `data:image/svg+xml,${encodeURIComponent("<svg xmlns='http://www.w3.org/2000/svg' width='52' height='14'><text x='0' y='11' font-family='sans-serif' font-size='11' fill='currentColor'>Redocly</text></svg>")}`;

export function withLocalBadge(text: string): string {
  if (!cdnLogos.every((logo) => text.includes(logo))) throw new Error(`Redoc no longer names its logo at ${cdnLogos.join(' and ')}: check where its badge loads it from now`);
  return cdnLogos.reduce((result, logo) => result.replaceAll(logo, localLogo), text);
}
