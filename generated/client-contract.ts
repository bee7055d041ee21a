// Written by `npm run generate` from the contract (openapi/): what client/contract-bundle.ts reads at run time.

export const webhookEventTypes: readonly string[] = [
  "company.formation.submitted",
  "company.formation.completed",
  "company.formation.failed",
  "company.ein.issued",
  "document.ready",
  "webhook_endpoint.disabled"
];

export const operationShapes: Readonly<Record<string, { pathParameters: readonly string[]; takesParameters: boolean; takesBody: boolean }>> = {
  "get /v1/partner/customers": {
    "pathParameters": [],
    "takesParameters": true,
    "takesBody": false
  },
  "post /v1/partner/customers": {
    "pathParameters": [],
    "takesParameters": false,
    "takesBody": true
  },
  "get /v1/partner/customers/{customerId}": {
    "pathParameters": [
      "customerId"
    ],
    "takesParameters": true,
    "takesBody": false
  },
  "get /v1/partner/companies": {
    "pathParameters": [],
    "takesParameters": true,
    "takesBody": false
  },
  "post /v1/partner/companies": {
    "pathParameters": [],
    "takesParameters": false,
    "takesBody": true
  },
  "get /v1/partner/companies/{companyId}": {
    "pathParameters": [
      "companyId"
    ],
    "takesParameters": true,
    "takesBody": false
  },
  "get /v1/partner/companies/{companyId}/documents": {
    "pathParameters": [
      "companyId"
    ],
    "takesParameters": true,
    "takesBody": false
  },
  "get /v1/partner/companies/{companyId}/documents/{documentId}": {
    "pathParameters": [
      "companyId",
      "documentId"
    ],
    "takesParameters": true,
    "takesBody": false
  },
  "get /v1/partner/companies/{companyId}/documents/{documentId}/content": {
    "pathParameters": [
      "companyId",
      "documentId"
    ],
    "takesParameters": true,
    "takesBody": false
  },
  "get /v1/partner/reference/countries": {
    "pathParameters": [],
    "takesParameters": true,
    "takesBody": false
  },
  "get /v1/partner/reference/states": {
    "pathParameters": [],
    "takesParameters": true,
    "takesBody": false
  },
  "get /v1/partner/reference/naics-codes": {
    "pathParameters": [],
    "takesParameters": true,
    "takesBody": false
  },
  "get /v1/partner/reference/filing-fees": {
    "pathParameters": [],
    "takesParameters": true,
    "takesBody": false
  },
  "post /v1/partner/sandbox/companies/{companyId}/simulate-formation": {
    "pathParameters": [
      "companyId"
    ],
    "takesParameters": true,
    "takesBody": true
  }
};
