/**
 * The package's entry (`npx @partner-formation/mock`, its `bin`): refuses a Node its `engines` does not admit,
 * saying how to get one, before anything that needs a newer Node loads (the mock itself is imported only then);
 * then runs the mock, its help naming the package's commands rather than a clone's, or, given `grade-receiver`
 * first, the receiver grader (mock/receiver-grader/cli.ts).
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
/** The package's second command: `partner-formation-mock grade-receiver URL --secret …`. */
const gradeReceiver = 'grade-receiver';

if (!supportsNode(manifest.engines.node, process.versions.node)) {
  console.error(oldNodeMessage({ name: manifest.name, version: manifest.version, bin, engines: manifest.engines.node }, process.versions.node));
  process.exitCode = 1;
} else if (process.argv[2] === gradeReceiver) {
  // The receiver grader, the same command as a clone's `npm run grade:receiver`.
  void import('../receiver-grader/cli.ts').then(async ({ runGraderCli }) => {
    process.exitCode = await runGraderCli(process.argv.slice(3), { command: `npx ${manifest.name} ${gradeReceiver}` });
  });
} else {
  // No top-level await: this module must at least parse on the old Nodes it turns away.
  void import('../app/run-mock.ts').then(({ runMock }) =>
    runMock({
      command: `npx ${manifest.name}`,
      alternatives: [`npx ./${tarballOf(manifest)}`, `${bin} (installed)`],
      commands: [`npx ${manifest.name} ${gradeReceiver} URL --secret whsec_…   grades a webhook receiver (${gradeReceiver} --help)`],
    }),
  );
}
