/**
 * Types of the REST operations, computed from the generated `paths` and `operations`, so that a change to the
 * contract changes every signature built on them: the mock's handlers and the client's methods alike. Nothing here
 * restates a schema.
 */
import type { operations, paths } from '../generated/openapi.js';

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';

/** The `[method, path]` pairs of `paths` whose operation is exactly `Op` (both ways assignable). */
export type RouteOf<Op> = {
  [P in keyof paths]: {
    [M in HttpMethod]: [NonNullable<paths[P][M]>] extends [never]
      ? never
      : paths[P][M] extends Op
        ? Op extends paths[P][M]
          ? readonly [M, P]
          : never
        : never;
  }[HttpMethod];
}[keyof paths];

/**
 * The operationIds of the REST API. `operations` also holds the webhook operations, which have no route in
 * `paths` and drop out here.
 */
export type OperationId = {
  [K in keyof operations]: [RouteOf<operations[K]>] extends [never] ? never : K;
}[keyof operations];

type ParametersOf<Op> = Op extends { parameters: infer P } ? P : never;
type Present<T> = [NonNullable<T>] extends [never] ? {} : NonNullable<T>;

export type PathParams<Op> = ParametersOf<Op> extends { path?: infer P } ? Present<P> : {};
export type QueryParams<Op> = ParametersOf<Op> extends { query?: infer Q } ? Present<Q> : {};
export type HeaderParams<Op> = ParametersOf<Op> extends { header?: infer H } ? Present<H> : {};

/** Path and query parameters in one object: the contract never uses one name for both. */
export type OperationParams<Op> = Flatten<PathParams<Op> & QueryParams<Op>>;

/** Shows `{ a; b }` rather than `A & B` in editor hovers and error messages. */
type Flatten<T> = { [K in keyof T]: T[K] } & {};

type JsonContent<R> = [NonNullable<R>] extends [never] ? never : NonNullable<R> extends { content: { 'application/json': infer B } } ? B : never;

/** The JSON body an operation takes; `| undefined` where the body is optional; never where it takes none. */
export type RequestBody<Op> = Op extends { requestBody: infer R }
  ? JsonContent<R>
  : Op extends { requestBody?: infer R }
    ? [JsonContent<R>] extends [never]
      ? never
      : JsonContent<R> | undefined
    : never;

export type SuccessStatus = 200 | 201 | 202;
export type SuccessEnvelope<Op> = Op extends { responses: infer R }
  ? {
      [S in keyof R]: S extends SuccessStatus
        ? R[S] extends { content: { 'application/json': infer J } }
          ? J
          : never
        : never;
    }[keyof R]
  : never;

/** The `payload` of the operation's success envelope. */
export type Payload<Op> = SuccessEnvelope<Op> extends { payload: infer P } ? P : never;
