/**
 * `npm run bench:dev-reload`: how long `npm run dev` takes from saving an edit under openapi/ to serving it (the
 * edited summary visible in /openapi.json), over several edits, on a copy of the project. Prints the times; the
 * goal is 2 s or less. A benchmark, not a test: this machine is shared, so the numbers are read, not asserted.
 */
import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './load.ts';

const root = new URL('../', import.meta.url).pathname;
const edits = Number(process.env.EDITS ?? 8);

const project = await mkdtemp(join(tmpdir(), 'dev-bench-'));
for (const path of ['openapi', 'contract-changes', 'contract-model', 'scripts', 'mock', 'client', 'generated', 'package.json', 'redocly.yaml', 'releases', '.spectral.yaml', 'spectral']) {
  await cp(join(root, path), join(project, path), { recursive: true });
}
await symlink(join(root, 'node_modules'), join(project, 'node_modules'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const dev = spawn(join(project, 'node_modules', '.bin', 'tsx'), [join(project, 'scripts', 'dev', 'main.ts'), '--port', String(port), '--log-level', 'warn'], { cwd: project, stdio: 'ignore' });

const summary = async () => {
  const contract = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, { get: { summary: string } }> };
  return contract.paths['/v1/partner/customers']?.get.summary;
};
async function waitFor(expected: string | undefined, since: number): Promise<number> {
  for (;;) {
    if ((await summary().catch(() => undefined)) === expected) return performance.now() - since;
    if (performance.now() - since > 60_000) throw new Error(`not served after 60 s: ${expected ?? 'the mock'}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

try {
  await waitFor('List customers', performance.now());
  const file = join(project, 'openapi', 'paths', 'v1_partner_customers.yaml');
  const original = await readFile(file, 'utf8');
  const times: number[] = [];
  for (let edit = 1; edit <= edits; edit += 1) {
    // Apart from each other, as a designer saves: the background regeneration of the previous edit may still run.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const saved = performance.now();
    await writeFile(file, original.replace('summary: List customers', `summary: List customers, edit ${edit}`));
    times.push(await waitFor(`List customers, edit ${edit}`, saved));
  }
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] as number;
  console.log(`edit to served, over ${edits} edits (ms): ${times.map((time) => time.toFixed(0)).join(', ')}`);
  console.log(`median ${median.toFixed(0)} ms, max ${(sorted.at(-1) as number).toFixed(0)} ms (goal: 2000 ms or less)`);
} finally {
  dev.kill('SIGTERM');
  await new Promise((resolve) => dev.once('exit', resolve));
  await rm(project, { recursive: true, force: true });
}
