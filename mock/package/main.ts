/**
 * The package's entry (`npx @partner-formation/mock`, its `bin`): refuses a Node its `engines` does not admit,
 * saying how to get one, before anything that needs a newer Node loads (the mock itself is imported only then);
 * then runs the mock, its help naming the package's commands rather than a clone's.
 */
import { readFileSync } from 'node:fs';
import { oldNodeMessage, supportsNode, tarballOf } from './supported-node.ts';

interface Manifest {
  name: string;
  version: string;
  bin: Record<string, string>;
  engines: { node: string };
}

// dist/main.mjs, in the package: its manifest is one folder up.
const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as Manifest;
const bin = Object.keys(manifest.bin)[0] as string;

if (!supportsNode(manifest.engines.node, process.versions.node)) {
  console.error(oldNodeMessage({ name: manifest.name, version: manifest.version, bin, engines: manifest.engines.node }, process.versions.node));
  process.exitCode = 1;
} else {
  // No top-level await: this module must at least parse on the old Nodes it turns away.
  void import('../app/run-mock.ts').then(({ runMock }) =>
    runMock({ command: `npx ${manifest.name}`, alternatives: [`npx ./${tarballOf(manifest)}`, `${bin} (installed)`] }),
  );
}
