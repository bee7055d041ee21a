/**
 * The bundled contract as a value: its shape, and following its `$ref`s. Nothing here reads a file, so that a page
 * in a browser (the mock's console) reads the contract through the same model as the mock and the suite.
 */
export type JsonObject = { [key: string]: unknown };

export interface ContractDocument extends JsonObject {
  openapi: string;
  paths: Record<string, JsonObject>;
  components: Record<string, Record<string, JsonObject>>;
  webhooks?: Record<string, JsonObject>;
}

/** Follows local `$ref`s (`#/components/…`) until a real node is reached. */
export function deref<T = JsonObject>(document: ContractDocument, node: unknown): T {
  let current = node as JsonObject;
  for (let hops = 0; typeof current?.$ref === 'string'; hops += 1) {
    if (hops > 32) throw new Error(`$ref cycle at ${String(current.$ref)}`);
    current = pointer(document, current.$ref as string) as JsonObject;
  }
  return current as T;
}

export function pointer(document: ContractDocument, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported in the bundle, got ${ref}`);
  return ref
    .slice(2)
    .split('/')
    .map((token) => decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, key) => {
      if (node === null || typeof node !== 'object' || !(key in node)) throw new Error(`unresolvable $ref ${ref}`);
      return (node as JsonObject)[key];
    }, document);
}

/** The `maxItems` of an array property of a component schema, such as Customer's `companies`. */
export function maxItemsOf(document: ContractDocument, schemaName: string, property: string): number {
  const schema = deref(document, (document.components.schemas?.[schemaName]?.properties as Record<string, unknown> | undefined)?.[property]);
  if (typeof schema.maxItems !== 'number') throw new Error(`the contract gives ${schemaName}.${property} no maxItems`);
  return schema.maxItems;
}
