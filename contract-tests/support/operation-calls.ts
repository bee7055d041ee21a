/**
 * One well-formed call per operation, for the checks that apply to every operation alike (a missing key, an
 * injected 429/500/503). The table must name every operationId of the contract: its type fails the typecheck
 * when an operation is added without a call here.
 */
import type { OperationId, PartnerClient } from '../../client/index.ts';
import { api, ccorpRequest, completedCompany, customerRequest, newCompany, newCustomer, simulation } from './fixtures.ts';

export interface World {
  customerId: string;
  /** A company left PENDING. */
  pendingCompanyId: string;
  /** A completed company and one of its documents. */
  completedCompanyId: string;
  documentId: string;
}

export async function prepareWorld(): Promise<World> {
  const customer = await newCustomer();
  const pending = await newCompany('LLC');
  const completed = await completedCompany('LLC');
  const { payload: documents } = await api.listCompanyDocuments({ companyId: completed.serviceCompanyId });
  const document = documents.data[0];
  if (!document) throw new Error(`The completed company ${completed.serviceCompanyId} lists no document.`);
  return {
    customerId: customer.serviceCustomerId,
    pendingCompanyId: pending.serviceCompanyId,
    completedCompanyId: completed.serviceCompanyId,
    documentId: document.documentId,
  };
}

export type OperationCall = (client: PartnerClient, world: World) => Promise<unknown>;

export const operationCalls: Record<OperationId, OperationCall> = {
  listCustomers: (client) => client.listCustomers({ limit: 1 }),
  createCustomer: (client) => client.createCustomer(customerRequest()),
  getCustomer: (client, world) => client.getCustomer({ customerId: world.customerId }),
  listCompanies: (client) => client.listCompanies({ limit: 1 }),
  createCompany: (client, world) => client.createCompany(ccorpRequest(world.customerId)),
  getCompany: (client, world) => client.getCompany({ companyId: world.completedCompanyId }),
  listCompanyDocuments: (client, world) => client.listCompanyDocuments({ companyId: world.completedCompanyId }),
  getCompanyDocument: (client, world) =>
    client.getCompanyDocument({ companyId: world.completedCompanyId, documentId: world.documentId }),
  // A fresh URL each time: on the suite's mock they expire after 2 s.
  downloadCompanyDocument: async (client, world) => {
    const { payload } = await api.getCompanyDocument({ companyId: world.completedCompanyId, documentId: world.documentId });
    return client.downloadDocument(payload.downloadUrl);
  },
  listCountries: (client) => client.listCountries({ limit: 1 }),
  listStates: (client) => client.listStates({ limit: 1 }),
  listNaicsCodes: (client) => client.listNaicsCodes({ limit: 1 }),
  listFilingFees: (client) => client.listFilingFees({ limit: 1 }),
  simulateCompanyFormation: (client, world) =>
    client.simulateCompanyFormation({ companyId: world.pendingCompanyId }, simulation('SimulateFormationNext')),
};
