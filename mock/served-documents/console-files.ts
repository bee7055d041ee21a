/**
 * The console's files (`/_mock/console`): its page, its script and its stylesheet, served like the other documents
 * (compressed, read-only). The script is built from `console/` with the mock (scripts/build-mock.mjs) into
 * `console/` beside the mock's start-up bundle; run from source, the mock serves the last one built in `.build/`.
 *
 * The page carries no data: what it shows comes from the admin and partner APIs, which apply their own checks (the
 * admin guard's Host, Origin and token). So the files themselves need no token, and a team member on another
 * machine can open the page of a mock started with `--admin-token`, then give the token in it.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { generatedPath } from '../../contract-model/generated-files.ts';
import type { StaticDocument } from './static-documents.ts';

export const consolePath = '/_mock/console';

/** What the console's files may do: load from the mock only, and never be framed by another site. */
const policy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-src 'self' blob:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const page = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Console — Partner Formation API mock</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${consolePath}/console.css">
<script type="module" src="${consolePath}/console.js"></script>
</head>
<body>
<div id="console"></div>
<noscript>The console needs JavaScript.</noscript>
</body>
</html>
`;

/** Where the built console is: beside the running bundle, else in `.build/` (the mock run from source). */
function consoleDirectory(): string | undefined {
  const candidates = [fileURLToPath(new URL('./console/', import.meta.url)), generatedPath('..', '.build', 'console')];
  return candidates.find((directory) => existsSync(`${directory}/console.js`));
}

export function consoleDocuments(): Record<string, StaticDocument> {
  const file = (name: string) => async () => {
    const directory = consoleDirectory();
    return directory === undefined ? undefined : readFile(`${directory}/${name}`).catch(() => undefined);
  };
  const headers = { 'content-security-policy': policy, 'x-content-type-options': 'nosniff' };
  return {
    [consolePath]: { contentType: 'text/html; charset=utf-8', headers, read: async () => Buffer.from(page) },
    [`${consolePath}/console.js`]: { contentType: 'text/javascript; charset=utf-8', headers, read: file('console.js'), missing: 'The console is not built: run `node scripts/build-mock.mjs` (npm start does).' },
    [`${consolePath}/console.css`]: { contentType: 'text/css; charset=utf-8', headers, read: file('console.css'), missing: 'The console is not built: run `node scripts/build-mock.mjs` (npm start does).' },
  };
}
