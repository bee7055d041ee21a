/**
 * Runs in every test file: notes that the file ran (the coverage check only fails a complete run), and fails
 * the test during which a response broke the contract, with what broke.
 */
import { afterAll, afterEach } from 'vitest';
import { currentTestFile, record, takeViolations } from './observe.ts';

record({ kind: 'file', file: currentTestFile() });

function failOnViolations(): void {
  const violations = takeViolations();
  if (violations.length > 0) {
    throw new Error(`${violations.length} response(s) broke the contract:\n${violations.join('\n')}`);
  }
}

afterEach(failOnViolations);
// Responses received in beforeAll/afterAll hooks belong to no test: the file fails instead.
afterAll(failOnViolations);
