import { describe, expect, it } from 'vitest';
import { listOperations } from '../../contract-model/operations.ts';
import { perOperation } from '../../contract-model/per-operation.ts';
import { sampleContract } from './fixtures.ts';

describe('perOperation', () => {
  it('builds an operation’s value on its first use only, and none for an unknown operation', () => {
    const built: string[] = [];
    const valueOf = perOperation(listOperations(sampleContract()), (operation) => {
      built.push(operation.operationId);
      return `${operation.method} ${operation.pathTemplate}`;
    });
    expect(built).toEqual([]);
    expect(valueOf('getThing')).toBe('GET /things/{id}');
    expect(valueOf('getThing')).toBe('GET /things/{id}');
    expect(valueOf('nothing')).toBeUndefined();
    expect(built).toEqual(['getThing']);
  });
});
