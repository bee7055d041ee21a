/**
 * The API's contract as the mock serves it (`/openapi.json`), read once, through the same model the mock reads it
 * with (contract-model/): its operations for the forms of Try and the filters, and the answers each documents for
 * forced answers. Nothing about the API is written in the console itself.
 */
import { signal } from '@preact/signals';
import type { ContractDocument } from '../contract-model/document-nodes.ts';
import { documentedAnswers, type OperationAnswers } from '../contract-model/documented-answers.ts';
import { listOperations, type ContractOperation } from '../contract-model/operations.ts';

export interface LoadedContract {
  document: ContractDocument;
  operations: ContractOperation[];
  answersOf(operation: ContractOperation): OperationAnswers;
}

export const contract = signal<LoadedContract | undefined>(undefined);
export const contractProblem = signal<string | undefined>(undefined);

export async function loadContract(): Promise<void> {
  try {
    const response = await fetch('/openapi.json');
    if (!response.ok) throw new Error(`/openapi.json answered ${response.status}`);
    const document = (await response.json()) as ContractDocument;
    const answers = new Map<string, OperationAnswers>();
    contract.value = {
      document,
      operations: listOperations(document),
      answersOf: (operation) => {
        let found = answers.get(operation.operationId);
        if (!found) answers.set(operation.operationId, (found = documentedAnswers(document, operation)));
        return found;
      },
    };
  } catch (error) {
    contractProblem.value = `The contract could not be read: ${(error as Error).message}`;
  }
}
