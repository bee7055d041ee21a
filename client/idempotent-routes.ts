/**
 * Which requests get a generated `Idempotency-Key`. The list is checked against the contract's types both ways:
 * an entry that is not a create operation fails `satisfies`, and a create operation added to the contract
 * without an entry here fails `MissingIdempotentRoute`. Routes are matched on the path template, which
 * openapi-fetch hands to middleware as `schemaPath`.
 */
import type { IdempotentRoute } from './contract-types.ts';

const idempotentRoutes = [
  'POST /v1/partner/customers',
  'POST /v1/partner/companies',
] as const satisfies readonly IdempotentRoute[];

type Listed = (typeof idempotentRoutes)[number];
type MissingIdempotentRoute = Exclude<IdempotentRoute, Listed>;
// Fails to compile, naming the route, when the contract has a create operation the list lacks.
const everyCreateOperationIsListed: [MissingIdempotentRoute] extends [never] ? true : MissingIdempotentRoute = true;
void everyCreateOperationIsListed;

const routeSet: ReadonlySet<string> = new Set(idempotentRoutes);

export function isIdempotentCreate(method: string, schemaPath: string): boolean {
  return routeSet.has(`${method.toUpperCase()} ${schemaPath}`);
}
