/** The package's Node check: which versions `engines` admits, and what it says to the others. */
import { describe, expect, it } from 'vitest';
import { oldNodeMessage, readRange, supportsNode } from '../../../mock/package/supported-node.ts';
import kit from '../../../package.json' with { type: 'json' };

const range = '^22.13.0 || >=24.0.0';

describe('supportsNode', () => {
  it('admits what npm would for the range the package ships with', () => {
    const admitted = ['22.13.0', '22.20.1', '24.0.0', '24.21.0', '26.1.0'];
    const refused = ['18.20.4', '20.20.2', '22.12.0', '22.5.1', '23.11.0'];
    expect(admitted.filter((version) => supportsNode(range, version))).toEqual(admitted);
    expect(refused.filter((version) => supportsNode(range, version))).toEqual([]);
  });

  it('reads the kit\'s own engines range, which the package is built with', () => {
    expect(() => readRange(kit.devEngines.runtime.version)).not.toThrow();
    expect(supportsNode(kit.devEngines.runtime.version, process.versions.node)).toBe(true);
  });

  it('refuses to read a comparator it would have to guess at', () => {
    expect(() => readRange('>=22 <25')).toThrow(/">=22" is not \^X\.Y\.Z or >=X\.Y\.Z/);
    expect(() => readRange('~22.13.0')).toThrow(/is not/);
  });
});

describe('oldNodeMessage', () => {
  it('names the Node found, the range, and how to run the package on the newest major the range names', () => {
    const message = oldNodeMessage({ name: '@partner-formation/mock', version: '1.2.3', bin: 'partner-formation-mock', engines: range }, '20.11.1');
    expect(message.split('\n')).toEqual([
      `error: @partner-formation/mock 1.2.3 needs Node ${range}, and this is Node 20.11.1.`,
      'Run it on Node 24 without installing it (npx fetches Node from the npm registry):',
      '  npx -p node@24 -p ./partner-formation-mock-1.2.3.tgz partner-formation-mock [options]',
      '  npx -p node@24 -p @partner-formation/mock@1.2.3 partner-formation-mock [options]    (from a registry)',
      'or install Node 24 (nvm install 24, fnm install 24, or https://nodejs.org) and run it again.',
    ]);
  });
});
