/**
 * A seed document as the seed reads it (`--seed FILE`, `POST /_mock/seed`), and a recording (`--record FILE`), which
 * is one: what proxy/recording.ts writes and seed.ts loads.
 */
import type { CCorpFormationRequest, CustomerCreateRequest, FormationFailureReason, FormationStatus, LlcFormationRequest } from '../../generated/openapi.js';

export type FormationBody = Omit<LlcFormationRequest, 'serviceCustomerId'> | Omit<CCorpFormationRequest, 'serviceCustomerId'>;

export interface SeedCompany {
  formation: FormationBody;
  /** The status it should reach (default PENDING); anything past PENDING needs the sandbox's simulation. */
  status?: FormationStatus;
  failureReason?: FormationFailureReason;
}

export interface SeedCustomer {
  customer: CustomerCreateRequest;
  companies?: SeedCompany[];
}

export interface SeedPartner {
  apiKey: string;
  customers: SeedCustomer[];
}

/** One partner's section of a recording (proxy/recording.ts): labelled with its key masked, never the key. */
export interface RecordedPartner {
  partner: string;
  /** How the upstream's answers broke the contract while this was recorded; a recording with any is refused. */
  violations: string[];
  customers: SeedCustomer[];
}

/** A recording: what passed through the mock as a proxy, per partner, loaded for the partner whose key loads it. */
export interface RecordingDocument {
  recording: { upstream: string; startedAt: string; writtenAt: string; about: string };
  recorded: RecordedPartner[];
}
