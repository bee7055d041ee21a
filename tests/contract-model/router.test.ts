import { describe, expect, it } from 'vitest';
import { listOperations } from '../../contract-model/operations.ts';
import { createRouter, type RouteMatch } from '../../contract-model/router.ts';
import { sampleContract } from './fixtures.ts';

const operations = listOperations(sampleContract());
const route = createRouter(operations);
const found = (match: RouteMatch) => (match.kind === 'operation' ? [match.operation.operationId, match.pathParams] : match);

describe('createRouter', () => {
  it('finds a static path, and a templated one with its parameters decoded', () => {
    expect(found(route('GET', '/things'))).toEqual(['listThings', {}]);
    expect(found(route('POST', '/things'))).toEqual(['createThing', {}]);
    expect(found(route('GET', '/things/t_1%2F2'))).toEqual(['getThing', { id: 't_1/2' }]);
    expect(found(route('GET', '/things/t_1/file'))).toEqual(['downloadThing', { id: 't_1' }]);
  });

  it('keeps a parameter that is not valid percent-encoding as sent', () => {
    expect(found(route('GET', '/things/%E0%A4%A'))).toEqual(['getThing', { id: '%E0%A4%A' }]);
  });

  it('prefers a static segment to a templated one, whatever order the contract lists them in', () => {
    expect(found(route('GET', '/things/special'))).toEqual(['getSpecial', {}]);
    expect(found(route('GET', '/things/special/parts/p1'))).toEqual(['getSpecialPart', { part: 'p1' }]);
    expect(found(route('GET', '/things/t_1/parts/p1'))).toEqual(['getPart', { id: 't_1', part: 'p1' }]);
    const reversed = createRouter([...operations].reverse());
    expect(found(reversed('GET', '/things/special/parts/p1'))).toEqual(['getSpecialPart', { part: 'p1' }]);
  });

  it('answers HEAD with the GET operation', () => {
    expect(found(route('HEAD', '/things/t_1'))).toEqual(['getThing', { id: 't_1' }]);
  });

  it('says which methods a known path allows, and when no path matches', () => {
    expect(route('PUT', '/things/t_1')).toEqual({ kind: 'method-not-allowed', allow: ['GET', 'DELETE'] });
    expect(route('DELETE', '/things')).toEqual({ kind: 'method-not-allowed', allow: ['GET', 'POST'] });
    expect(route('GET', '/things/t_1/other')).toEqual({ kind: 'not-found' });
    expect(route('GET', '/things/')).toEqual({ kind: 'not-found' });
  });
});
