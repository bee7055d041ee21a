/**
 * Runs in every test file: starts the mock in the file's worker when it is the target (in-process-target.ts), notes
 * that the file ran (the coverage check only fails a complete run), and fails the test during which a response
 * broke the contract, with what broke.
 */
import { afterAll, afterEach } from 'vitest';
import { serveInProcess } from './in-process-target.ts';
import { currentTestFile, record, takeViolations, target } from './observe.ts';

// Against the mock in process, each file's worker runs it, behind Mock Service Worker.
if (target.kind === 'in-process') await serveInProcess(target, { afterAll });

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
