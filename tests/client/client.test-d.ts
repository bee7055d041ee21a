/**
 * Compile-time checks: the client's types come from the contract, so misuse does not compile. Each
 * `@ts-expect-error` fails this file if the line below it ever compiles.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type {
  Company,
  Customer,
  CustomerCreateRequest,
  Document,
  DocumentReadyEvent,
  DocumentWithDownloadUrl,
  ErrorCode,
  FieldError,
  FormationFailureReason,
  SimulateFormationRequest,
  webhooks,
} from '../../generated/openapi.js';
import type { components } from '../../generated/openapi.js';
import {
  paginate,
  verifyWebhook,
  type OperationParams,
  type Payload,
  type PartnerApiError,
  type PartnerClient,
  type RequestBody,
  type ResponseMeta,
  type WebhookEvent,
  type WebhookEventType,
} from '../../client/index.ts';
import type * as Client from '../../client/index.ts';
import { newCustomer, newLlc } from './fixtures.ts';

declare const client: PartnerClient;
declare const error: PartnerApiError;
declare const event: WebhookEvent;

describe('the client methods', () => {
  it('resolve to the payload typed by the contract, and the response metadata', () => {
    expectTypeOf(client.createCustomer).returns.resolves.toEqualTypeOf<{ payload: Customer; meta: ResponseMeta }>();
    expectTypeOf(client.getCompany).returns.resolves.toHaveProperty('payload').toEqualTypeOf<Company>();
    expectTypeOf(client.getCompanyDocument)
      .returns.resolves.toHaveProperty('payload')
      .toEqualTypeOf<DocumentWithDownloadUrl>();
    expectTypeOf(client.downloadDocument).returns.resolves.toHaveProperty('payload').toEqualTypeOf<Uint8Array>();
    expectTypeOf(client.listCustomers)
      .returns.resolves.toHaveProperty('payload')
      .toHaveProperty('data')
      .toEqualTypeOf<Customer[]>();
  });

  it('take the contract request body', () => {
    expectTypeOf(client.createCustomer).parameter(0).toEqualTypeOf<CustomerCreateRequest>();
    expectTypeOf(client.simulateCompanyFormation).parameter(1).toEqualTypeOf<SimulateFormationRequest>();

    // @ts-expect-error `emial` is not a property of CustomerCreateRequest (a typo the API would refuse)
    void client.createCustomer({ ...newCustomer, emial: 'ada@example.com' });

    const { countryOfResidence: _, ...withoutCountry } = newCustomer;
    // @ts-expect-error `countryOfResidence` is required
    void client.createCustomer(withoutCountry);

    // @ts-expect-error `entityType` is `LLC` or `CCorp`
    void client.createCompany({ entityType: 'SoleProprietorship' });
  });

  it('take the contract parameters by name', () => {
    expectTypeOf(client.getCustomer).parameter(0).toEqualTypeOf<{ customerId: string }>();
    void client.listCompanyDocuments({ companyId: 'com_1', limit: 10 });

    // @ts-expect-error the path parameter is `customerId`
    void client.getCustomer({ id: 'cus_1' });
    // @ts-expect-error `companyId` is required
    void client.listCompanyDocuments({ limit: 10 });
    // @ts-expect-error `status` is a FormationStatus
    void client.listCompanies({ status: 'DONE' });
    // @ts-expect-error the raw client checks path parameter names too
    void client.raw.GET('/v1/partner/customers/{customerId}', { params: { path: { id: 'cus_1' } } });
    // @ts-expect-error no such path in the contract
    void client.raw.GET('/v1/partner/customer/{customerId}', { params: { path: { customerId: 'cus_1' } } });
  });

  it('take an idempotency key on creates only', () => {
    void client.createCompany(newLlc, { idempotencyKey: 'order-42' });
    // @ts-expect-error reads take no Idempotency-Key
    void client.getCompany({ companyId: 'com_1' }, { idempotencyKey: 'order-42' });
  });

  it('let the raw client omit Idempotency-Key, which the middleware adds', () => {
    void client.raw.POST('/v1/partner/customers', { body: newCustomer });
  });
});

describe('the types the client exports', () => {
  it('name each schema of the contract', () => {
    expectTypeOf<Client.Customer>().toEqualTypeOf<components['schemas']['Customer']>();
    expectTypeOf<Client.Company>().toEqualTypeOf<components['schemas']['Company']>();
    expectTypeOf<Client.CompanyCreateRequest>().toEqualTypeOf<components['schemas']['CompanyCreateRequest']>();
    expectTypeOf<Client.FormationStatus>().toEqualTypeOf<components['schemas']['FormationStatus']>();
    expectTypeOf<Client.DocumentReadyEvent>().toEqualTypeOf<components['schemas']['DocumentReadyEvent']>();
  });

  it('give an operation\'s payload, body and parameters by its operationId', () => {
    expectTypeOf<Payload<'getCompany'>>().toEqualTypeOf<Company>();
    expectTypeOf<Payload<'createCustomer'>>().toEqualTypeOf<Customer>();
    expectTypeOf<Payload<'listCustomers'>['data']>().toEqualTypeOf<Customer[]>();
    expectTypeOf<Payload<'getCompany'>>().toEqualTypeOf<Awaited<ReturnType<PartnerClient['getCompany']>>['payload']>();
    expectTypeOf<RequestBody<'createCustomer'>>().toEqualTypeOf<CustomerCreateRequest>();
    expectTypeOf<OperationParams<'getCustomer'>>().toEqualTypeOf<{ customerId: string }>();
  });

  it('refuse an operationId the contract lacks, rather than making it unknown', () => {
    // @ts-expect-error `getCompanny` is not an operationId of the contract
    expectTypeOf<Payload<'getCompanny'>>().toBeUnknown();
    // @ts-expect-error webhook operations have no payload to answer with: only the REST operations are named
    expectTypeOf<Payload<'documentReady'>>().toBeUnknown();
    // @ts-expect-error nor does the body of an unknown operation exist
    expectTypeOf<RequestBody<'createCustomers'>>().toBeNever();
  });
});

describe('PartnerApiError', () => {
  it('carries the contract error code and field errors', () => {
    expectTypeOf(error.code).toEqualTypeOf<ErrorCode>();
    expectTypeOf(error.details).toEqualTypeOf<FieldError[]>();
    expectTypeOf(error.requestId).toEqualTypeOf<string>();
    expectTypeOf(error.retryAfter).toEqualTypeOf<number | undefined>();

    if (error.code === 'E_IDEMPOTENCY_KEY_REUSED') expectTypeOf(error.status).toBeNumber();
    // @ts-expect-error `E_CONFLICT` is not a code of the contract
    if (error.code === 'E_CONFLICT') expectTypeOf(error.status).toBeNumber();
    // @ts-expect-error field-level codes are a separate catalogue
    if (error.details[0]?.code === 'E_NOT_FOUND') expectTypeOf(error.status).toBeNumber();
  });
});

describe('paginate', () => {
  it('yields the items of the list, with the list method arguments', () => {
    expectTypeOf(paginate(client.listCustomers, { limit: 100 })).toEqualTypeOf<
      AsyncGenerator<Customer, void, undefined>
    >();
    expectTypeOf(paginate(client.listCompanyDocuments, { companyId: 'com_1' })).toEqualTypeOf<
      AsyncGenerator<Document, void, undefined>
    >();
    // @ts-expect-error `companyId` is required by listCompanyDocuments
    void paginate(client.listCompanyDocuments, {});
    // @ts-expect-error getCompany is not a list
    void paginate(client.getCompany, { companyId: 'com_1' });
  });
});

describe('verifyWebhook', () => {
  it('returns the union of the contract webhook events, discriminated by type', () => {
    expectTypeOf(verifyWebhook).returns.resolves.toEqualTypeOf<WebhookEvent>();
    expectTypeOf(event.type).toEqualTypeOf<WebhookEventType>();
    expectTypeOf<WebhookEventType>().toEqualTypeOf<keyof webhooks>();
    expectTypeOf<Extract<WebhookEvent, { type: 'document.ready' }>['data']>().toEqualTypeOf<
      NonNullable<DocumentReadyEvent['data']>
    >();
  });

  it('needs `type` narrowed before event-specific data is read', () => {
    // @ts-expect-error webhook_endpoint.disabled has no serviceCompanyId
    void event.data.serviceCompanyId;
    // @ts-expect-error only company.ein.issued has an ein
    void event.data.ein;

    if (event.type === 'company.ein.issued') {
      expectTypeOf(event.data.ein).toEqualTypeOf<string>();
      // @ts-expect-error nor does a narrowed event accept properties it does not have
      void event.data.documentId;
    }
    if (event.type === 'company.formation.failed') {
      expectTypeOf(event.data.failure.reason).toEqualTypeOf<FormationFailureReason>();
    }
    // @ts-expect-error `company.renamed` is not an event type of the contract
    if (event.type === 'company.renamed') void event;
  });
});
