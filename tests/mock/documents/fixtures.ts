import type { CCorpCompany, LlcCompany } from '../../../generated/openapi.js';

const common = {
  serviceCustomerId: 'cus_7pQr2sTu4vWx6yZa8bCd0eFg',
  naicsCode: '541511',
  description: 'Software consulting and custom programming for research institutions.',
  responsibleParty: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada.lovelace@example.com' },
  mailingAddress: { line1: '10 Downing Street', city: 'London', postalCode: 'SW1A 2AA', country: 'GBR' },
  businessAddress: {
    line1: '251 Little Falls Drive',
    line2: 'Suite 400',
    city: 'Wilmington',
    region: 'DE',
    postalCode: '19808',
    country: 'USA',
  },
  status: 'COMPLETED',
  failure: null,
  filingDate: '2026-11-24',
  ein: '12-3456789',
  createdAt: '2026-11-22T10:15:30Z',
  updatedAt: '2026-11-24T09:00:05Z',
} as const;

export const llc: LlcCompany = {
  ...common,
  serviceCompanyId: 'com_5kHx9QaZ2mTw6RcN8vLp3JyD',
  entityType: 'LLC',
  name: 'Analytical Engines LLC',
  nameOptions: ['Analytical Engines LLC', 'Difference Engines LLC'],
  state: 'DE',
  members: [
    { firstName: 'Ada', lastName: 'Lovelace', email: 'ada.lovelace@example.com', ownershipPercent: 60 },
    { firstName: 'Charles', lastName: 'Babbage', email: 'charles.babbage@example.com', ownershipPercent: 40 },
  ],
};

export const ccorp: CCorpCompany = {
  ...common,
  serviceCompanyId: 'com_9aBc8dEf7gHi6jKl5mNo4pQr',
  entityType: 'CCorp',
  name: 'Compiler Works Inc.',
  nameOptions: ['Compiler Works Inc.'],
  state: 'WY',
  responsibleParty: { firstName: 'Grace', lastName: 'Hopper', email: 'grace.hopper@example.com' },
  executiveMembers: [
    { firstName: 'Grace', lastName: 'Hopper', email: 'grace.hopper@example.com', roles: ['PRESIDENT', 'DIRECTOR'] },
    {
      firstName: 'Jean',
      lastName: 'Sammet',
      email: 'jean.sammet@example.com',
      roles: ['SECRETARY', 'TREASURER', 'DIRECTOR'],
    },
  ],
  shareStructure: { authorizedShares: 10000000, parValueUsd: '0.00001' },
};
