import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultContractPath, deref, loadContract, loadContractSync, maxItemsOf } from '../../contract-model/document.ts';
import { schemaCompilerOf } from '../../contract-model/schema-compiler.ts';
import { sampleContract } from './fixtures.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'contract-model-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('loadContract', () => {
  it('reads the bundle npm run generate wrote', async () => {
    expect((await loadContract()).openapi).toMatch(/^3\.1\./);
    expect(defaultContractPath).toMatch(/generated[\\/]openapi\.json$/);
  });

  it('says how to make a missing bundle, and refuses a document that is not OpenAPI 3.1', async () => {
    await expect(loadContract(join(dir, 'absent.json'))).rejects.toThrow(/npm run generate/);
    const old = join(dir, 'old.json');
    await writeFile(old, JSON.stringify({ ...sampleContract(), openapi: '3.0.3' }));
    await expect(loadContract(old)).rejects.toThrow(/not an OpenAPI 3.1 document/);
  });

  it('gives the same document for the same file, and with it the same compiled checks; a changed file a new one', async () => {
    const file = join(dir, 'kept.json');
    await writeFile(file, JSON.stringify(sampleContract()));
    const first = await loadContract(file);
    expect(await loadContract(file)).toBe(first);
    expect(loadContractSync(file)).toBe(first);
    expect(schemaCompilerOf(first)).toBe(schemaCompilerOf(await loadContract(file)));
    await writeFile(file, JSON.stringify({ ...sampleContract(), info: { title: 'Changed', version: '1.0.0' } }));
    const changed = await loadContract(file);
    expect(changed).not.toBe(first);
    expect(changed.info).toMatchObject({ title: 'Changed' });
    expect(schemaCompilerOf(changed)).not.toBe(schemaCompilerOf(first));
    // A refused file keeps nothing: the next read of the good one is read again.
    await writeFile(file, '{"openapi": "3.0.3"}');
    await expect(loadContract(file)).rejects.toThrow(/not an OpenAPI 3.1 document/);
    await writeFile(file, JSON.stringify(sampleContract()));
    const again = await loadContract(file);
    expect(again).not.toBe(changed);
    expect(again).toEqual(first);
  });
});

describe('loadContractSync', () => {
  it('reads what loadContract reads, with the same refusals', async () => {
    expect(loadContractSync()).toEqual(await loadContract());
    expect(() => loadContractSync(join(dir, 'absent.json'))).toThrow(/npm run generate/);
    const old = join(dir, 'old-sync.json');
    await writeFile(old, JSON.stringify({ ...sampleContract(), openapi: '3.0.3' }));
    expect(() => loadContractSync(old)).toThrow(/not an OpenAPI 3.1 document/);
  });
});

describe('deref', () => {
  const contract = sampleContract();

  it('follows $refs until a real node, and leaves a real node as it is', () => {
    expect(deref(contract, { $ref: '#/components/headers/Remaining' })).toEqual({ required: true, schema: { type: 'integer', minimum: 0 } });
    const chained = { ...contract, components: { ...contract.components, headers: { ...contract.components.headers, Alias: { $ref: '#/components/headers/Remaining' } } } };
    expect(deref(chained, { $ref: '#/components/headers/Alias' })).toEqual({ required: true, schema: { type: 'integer', minimum: 0 } });
    expect(deref(contract, { type: 'string' })).toEqual({ type: 'string' });
  });

  it('refuses a $ref that does not resolve, a remote one, and a cycle', () => {
    expect(() => deref(contract, { $ref: '#/components/schemas/Nothing' })).toThrow(/unresolvable \$ref/);
    expect(() => deref(contract, { $ref: 'other.yaml#/Thing' })).toThrow(/only local \$refs/);
    const looping = { ...contract, components: { ...contract.components, headers: { A: { $ref: '#/components/headers/A' } } } };
    expect(() => deref(looping, { $ref: '#/components/headers/A' })).toThrow(/\$ref cycle/);
  });
});

describe('maxItemsOf', () => {
  it('reads the maxItems of an array property, and says when there is none', () => {
    expect(maxItemsOf(sampleContract(), 'Thing', 'parts')).toBe(3);
    expect(() => maxItemsOf(sampleContract(), 'Thing', 'id')).toThrow(/no maxItems/);
  });
});
