/**
 * Types only the client needs, built on the operation types of `contract-model/` (one definition for the mock and
 * the client): an operation's payload, body and parameters by its operationId, which operations are creates, their
 * `Idempotency-Key` made optional, and the replay header.
 */
import type { components, operations, paths } from '../generated/openapi.js';
import type * as OfOperation from '../contract-model/operation-types.ts';
import type { HeaderParams, HttpMethod, OperationId } from '../contract-model/operation-types.ts';

export type { HttpMethod, OperationId, RouteOf } from '../contract-model/operation-types.ts';

/*
 * By operationId, as a caller names an operation (`Payload<'getCompany'>` is `Company`): `contract-model/` takes
 * the operation's type itself, which the package does not export. The constraint makes a name the contract lacks a
 * compile error, where an unconstrained parameter would quietly give `unknown`.
 */
/** The `payload` of the operation's success answer: what its method resolves to. */
export type Payload<Id extends OperationId> = OfOperation.Payload<operations[Id]>;
/** The JSON body the operation takes (`never` when it takes none). */
export type RequestBody<Id extends OperationId> = OfOperation.RequestBody<operations[Id]>;
/** The operation's path and query parameters, in one object, as its method takes them. */
export type OperationParams<Id extends OperationId> = OfOperation.OperationParams<operations[Id]>;

/** Whether the operation takes the `Idempotency-Key` header, i.e. is one of the create operations. */
export type IsIdempotentCreate<Op> = 'Idempotency-Key' extends keyof HeaderParams<Op> ? true : false;

/** `Idempotent-Replayed` as the contract spells it (`"true"` | `"false"`). */
export type IdempotentReplayedHeader = components['headers']['IdempotentReplayed'];

/**
 * `paths` with `Idempotency-Key` made optional: the client's middleware supplies one when the caller does not, so
 * the raw client must not demand it. Everything else is the contract unchanged.
 */
export type ClientPaths = {
  [P in keyof paths]: { [M in keyof paths[P]]: WithOptionalIdempotencyKey<paths[P][M]> };
};

type WithOptionalIdempotencyKey<Op> = Op extends { parameters: { header: infer H } }
  ? 'Idempotency-Key' extends keyof H
    ? Omit<Op, 'parameters'> & {
        parameters: Omit<Op['parameters'], 'header'> & {
          header?: Omit<H, 'Idempotency-Key'> & { 'Idempotency-Key'?: H['Idempotency-Key'] };
        };
      }
    : Op
  : Op;

/** `METHOD /path` of every create operation, found by its `Idempotency-Key` header parameter. */
export type IdempotentRoute = {
  [P in keyof paths]: {
    [M in HttpMethod]: [NonNullable<paths[P][M]>] extends [never]
      ? never
      : IsIdempotentCreate<NonNullable<paths[P][M]>> extends true
        ? `${Uppercase<M>} ${P}`
        : never;
  }[HttpMethod];
}[keyof paths];
