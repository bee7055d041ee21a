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
  "webhookSecret": {
    "format": "^whsec_[A-Za-z0-9+/]+={0,2}$"
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
  },
  "idempotencyKeyLength": {
    "min": 1,
    "max": 255
  },
  "pageSize": {
    "default": 20,
    "min": 1,
    "max": 100
  },
  "errorMessageMaxLength": 1000,
  "documentMaxBytes": 26214400,
  "limits": {
    "requestBodyMaxBytes": 1048576,
    "requestHeadersMaxBytes": 16384,
    "idempotencyKeyRetentionSeconds": 86400,
    "downloadUrlValiditySeconds": 900,
    "rateLimits": {
      "sandbox": {
        "requestsPerSecond": 25,
        "burst": 50
      },
      "production": {
        "requestsPerSecond": 100,
        "burst": 200
      }
    },
    "webhooks": {
      "attemptTimeoutSeconds": 15,
      "retryScheduleSeconds": [
        5,
        300,
        1800,
        7200,
        18000,
        36000,
        36000
      ],
      "timestampToleranceSeconds": 300
    }
  },
  "traffic": {
    "maxExchanges": 100000,
    "maxBytes": 67108864
  },
  "webhookReceiver": {
    "acceptEveryEventType": "must",
    "answerWithinAttemptTimeout": "must",
    "refuseUnverified": "must",
    "acceptAnyMatchingSignature": "must",
    "acceptRepeats": "must",
    "processRepeatsOnce": "must",
    "acceptAdditions": "must",
    "keepLateCopiesFromMovingBack": "should"
  }
};
