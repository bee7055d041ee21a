// Written by `npm run generate` from the contract (openapi/): the facts contract-model/contract-facts.ts reads.
import type { ContractFacts } from '../contract-model/contract-facts-type.ts';

export const contractFacts: ContractFacts = {
  "apiKey": {
    "format": "^dk_(test|live)_[A-Za-z0-9]{24,64}$",
    "prefixes": {
      "sandbox": "dk_test_",
      "production": "dk_live_"
    }
  },
  "entitySuffixes": {
    "LLC": [
      "LLC",
      "L.L.C.",
      "Limited Liability Company"
    ],
    "CCorp": [
      "Inc.",
      "Inc",
      "Incorporated",
      "Corp.",
      "Corp",
      "Corporation"
    ]
  },
  "officerRoles": {
    "required": [
      "PRESIDENT",
      "SECRETARY",
      "TREASURER",
      "DIRECTOR"
    ],
    "singleHolder": [
      "PRESIDENT",
      "SECRETARY",
      "TREASURER"
    ]
  },
  "errorDetails": {
    "maxItems": 100,
    "maxFieldLength": 512
  },
  "headerFormats": {
    "requestId": "^[!-~]{1,200}$",
    "idempotencyKey": "^[!-~]{1,255}$"
  }
};
