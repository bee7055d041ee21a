/**
 * The traffic corpus the repository ships (contract-tests/traffic/contract-suite.json, the contract suite's own
 * traffic, which CI's review replays): a traffic document that holds no key, recorded by the mock, and traffic of the
 * contract as it is. Every answer the mock gave keeps the contract, and every request it accepted still passes: a
 * change to the contract that makes either untrue (accepted on purpose) calls for `npm run traffic:corpus`.
 */
import { describe, expect, it } from 'vitest';
import { loadContract } from '../../contract-model/document.ts';
import { createExchangeCheck } from '../../contract-changes/traffic/exchange-check.ts';
import { readTrafficFile } from '../../contract-changes/traffic/traffic-file.ts';
import { corpusPath } from '../../contract-tests/traffic/corpus.ts';
import { contractFacts } from '../../generated/contract-facts.ts';

describe('the traffic corpus', () => {
  it("is the contract suite's traffic, recorded by the mock, holding no key", async () => {
    const { document } = await readTrafficFile(corpusPath);
    expect(document.recordedBy).toMatchObject({ mode: 'mock', from: 'recording' });
    expect(document.omitted).toBe(0);
    const operations = new Set(document.exchanges.map((exchange) => exchange.request.operationId));
    expect(operations.has('createCustomer') && operations.has('createCompany') && operations.has('downloadCompanyDocument')).toBe(true);
  });

  it('is traffic of the contract as it is: run npm run traffic:corpus when this fails', async () => {
    const { document } = await readTrafficFile(corpusPath);
    const check = createExchangeCheck(await loadContract(), contractFacts.limits.requestBodyMaxBytes);
    const broken = document.exchanges.flatMap((exchange, index) => {
      const verdict = check(exchange);
      const status = exchange.answer?.status ?? 0;
      const problems = [
        ...(verdict.answer.kind === 'fails' ? verdict.answer.problems.map((problem) => `answer: ${problem.message}`) : []),
        ...(status >= 200 && status < 300 && verdict.request.kind === 'fails' ? verdict.request.problems.map((problem) => `accepted request: ${problem.in} ${problem.field}: ${problem.message}`) : []),
      ];
      return problems.map((problem) => `#${index} ${exchange.request.method} ${exchange.request.path}: ${problem}`);
    });
    expect(broken).toEqual([]);
  });
});
