/** createCompany (submits a formation), getCompany, listCompanies. */
import type { Company } from '../../generated/openapi.js';
import { getCustomer } from '../customers/customer-records.ts';
import { notFound, validationFailed } from '../http/api-error.ts';
import { newId } from '../ids.ts';
import type { CursorCodec } from '../pagination/cursor.ts';
import { listPayload, readListQuery } from '../pagination/page.ts';
import { change, partnerOf, type Handlers } from '../pipeline/handler.ts';
import type { Store, Tx } from '../store/store.ts';
import { getCompany, listCompanies } from './company-records.ts';
import { checkFormationRules, type FormationRequest } from './formation-rules.ts';

/** How a new company's formation starts: the formation timeline's first step, written with the company. */
export type StartFormation = (tx: Tx, partnerId: string, company: Company) => void;

export function companyHandlers(services: { store: Store; cursors: CursorCodec; startFormation: StartFormation; now: () => Date }): Pick<Handlers, 'createCompany' | 'getCompany' | 'listCompanies'> {
  const { store, cursors, startFormation, now } = services;
  return {
    createCompany(context) {
      const partner = partnerOf(context);
      const request: FormationRequest = context.body;
      const company = newCompany(request, now());
      return change(function (tx) {
        const customer = getCustomer(tx, partner.id, request.serviceCustomerId);
        const problems = checkFormationRules(request, customer !== undefined);
        if (problems.length > 0) throw validationFailed(problems);
        startFormation(tx, partner.id, company);
        return { status: 202 as const, payload: company };
      });
    },

    async getCompany(context) {
      const partner = partnerOf(context);
      const { companyId } = context.path;
      const company = await store.read((tx) => getCompany(tx, partner.id, companyId));
      if (!company) throw notFound(`company ${companyId}`);
      return { status: 200, payload: company };
    },

    async listCompanies(context) {
      const partner = partnerOf(context);
      const { serviceCustomerId, status, entityType } = context.query;
      const filter = { serviceCustomerId, status, entityType };
      const scope = { list: 'companies', partner: partner.id, ...filter };
      const request = readListQuery(context.query, cursors, scope);
      const page = await store.read((tx) => listCompanies(tx, partner.id, filter, request));
      return { status: 200, payload: listPayload(page, cursors, scope) };
    },
  };
}

function newCompany(request: FormationRequest, at: Date): Company {
  const timestamp = at.toISOString();
  const { taxId: _never, ...responsibleParty } = request.responsibleParty;
  const common = {
    serviceCompanyId: newId('com'),
    serviceCustomerId: request.serviceCustomerId,
    name: request.nameOptions[0] as string,
    nameOptions: request.nameOptions,
    state: request.state,
    naicsCode: request.naicsCode,
    description: request.description,
    // The tax id is write-only: it is used for the EIN application and never returned.
    responsibleParty,
    mailingAddress: request.mailingAddress,
    businessAddress: request.businessAddress,
    status: 'PENDING' as const,
    failure: null,
    filingDate: null,
    ein: null,
    createdAt: timestamp,
    updatedAt: timestamp,
  };
  return request.entityType === 'CCorp'
    ? { ...common, entityType: 'CCorp', executiveMembers: request.executiveMembers, shareStructure: request.shareStructure }
    : { ...common, entityType: 'LLC', members: request.members };
}
