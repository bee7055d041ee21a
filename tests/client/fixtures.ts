/** Contract-typed data for the client's tests: a change to the schemas that breaks them fails the type check. */
import type {
  Customer,
  CustomerCreateRequest,
  CustomerPage,
  FieldError,
  LlcFormationRequest,
} from '../../generated/openapi.js';

export const apiKey = 'dk_test_4eC39HqLyjWDarjtT1zdp7dc';

export const newCustomer: CustomerCreateRequest = {
  email: 'ada.lovelace@example.com',
  firstName: 'Ada',
  lastName: 'Lovelace',
  countryOfResidence: 'GBR',
};

const address = { line1: '251 Little Falls Drive', city: 'Wilmington', region: 'DE', postalCode: '19808', country: 'USA' };

export const newLlc: LlcFormationRequest = {
  serviceCustomerId: 'cus_8sWq2LmX4pTn7VbK3dRz9YhC',
  state: 'DE',
  naicsCode: '541511',
  description: 'Software consulting.',
  nameOptions: ['Analytical Engines LLC'],
  responsibleParty: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada.lovelace@example.com' },
  mailingAddress: address,
  businessAddress: address,
  members: [{ firstName: 'Ada', lastName: 'Lovelace', email: 'ada.lovelace@example.com', ownershipPercent: 100 }],
};

export function customer(n = 1): Customer {
  return {
    serviceCustomerId: `cus_${String(n).padStart(24, '0')}`,
    email: `customer${n}@example.com`,
    firstName: 'Ada',
    lastName: 'Lovelace',
    countryOfResidence: 'GBR',
    phoneNumber: null,
    created: true,
    companies: [],
    createdAt: '2026-11-22T10:15:30Z',
  };
}

export function customerPage(numbers: number[], nextCursor: string | null): CustomerPage {
  return { data: numbers.map(customer), hasMore: nextCursor !== null, nextCursor };
}

export const ownershipDetail: FieldError = {
  in: 'body',
  field: '/members',
  code: 'E_OWNERSHIP_TOTAL_INVALID',
  message: 'Member ownership must total exactly 100; it totals 90.',
};
