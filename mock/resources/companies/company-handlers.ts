/** createCompany (submits a formation), getCompany, listCompanies. */
import type { Company } from '../../../generated/openapi.js';
import { notFound, validationFailed } from '../../http/api-error.ts';
import type { CursorCodec } from '../../http/cursor.ts';
import { newId } from '../../ids.ts';
import type { FormationEngine } from '../../formation/formation-engine.ts';
import type { Store } from '../../store/store.ts';
import { partnerOf, type Handlers } from '../handler.ts';
import { listPayload, readListQuery } from '../paging.ts';
import { checkFormationRules, type FormationRequest } from './formation-rules.ts';

export function companyHandlers(services: { store: Store; cursors: CursorCodec; formation: FormationEngine; now: () => Date }): Pick<Handlers, 'createCompany' | 'getCompany' | 'listCompanies'> {
  const { store, cursors, formation, now } = services;
  return {
    async createCompany(context) {
      const partner = partnerOf(context);
      const request: FormationRequest = context.body;
      const customer = await store.customers.get(partner.id, request.serviceCustomerId);
      const problems = checkFormationRules(request, customer !== undefined);
      if (problems.length > 0) throw validationFailed(problems);
      const company = newCompany(request, now());
      await formation.start(partner.id, company);
      return { status: 202, payload: company };
    },

    async getCompany(context) {
      const partner = partnerOf(context);
      const { companyId } = context.path;
      const company = await store.companies.get(partner.id, companyId);
      if (!company) throw notFound(`company ${companyId}`);
      return { status: 200, payload: company };
    },

    async listCompanies(context) {
      const partner = partnerOf(context);
      const { serviceCustomerId, status, entityType } = context.query;
      const filter = { serviceCustomerId, status, entityType };
      const scope = { list: 'companies', partner: partner.id, ...filter };
      const page = await store.companies.list(partner.id, filter, readListQuery(context.query, cursors, scope));
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
