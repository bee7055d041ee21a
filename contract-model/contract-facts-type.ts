/**
 * The shape of the contract's facts (contract-facts.ts reads them): on its own, with no import, so that the client
 * package, which carries generated/contract-facts.ts, does not carry the bundle reader with it.
 */
export interface ContractFacts {
  apiKey: { format: string; prefixes: { sandbox: string; production: string } };
  entitySuffixes: { LLC: string[]; CCorp: string[] };
  officerRoles: { required: string[]; singleHolder: string[] };
  errorDetails: { maxItems: number; maxFieldLength: number };
  /** The patterns of `x-request-id` (the RequestId schema) and `Idempotency-Key` (its parameter's schema). */
  headerFormats: { requestId: string; idempotencyKey: string };
}
