/**
 * The description Dredd reads: generated/openapi.dereferenced.json, reduced to what Dredd 14 uses, in a copy
 * (generated/ itself is never touched). The contract gives every parameter an `example`, which is all Dredd's
 * OpenAPI 3.0 parser reads of a parameter, so the copy only leaves things out; the transactions Dredd compiles from
 * it are the same, request for request, as from the whole bundle.
 *
 * The reduction is for speed. Once a hook file is given, Dredd deep-clones its configuration, parse results of the
 * description included, before it loads the hooks; on the whole 2.9 MB bundle that alone takes more than a minute,
 * while a whole run on the copy takes a few seconds. So the copy keeps `paths` (and the security schemes they name) and drops what Dredd
 * parses but never uses: every schema of a request or response body that has examples (Dredd compares bodies with
 * the examples, by their keys only), the schemas under `components`, the webhooks, and descriptions.
 */
import { readFileSync, writeFileSync } from 'node:fs';

interface Media {
  schema?: unknown;
  example?: unknown;
  examples?: unknown;
}

interface Operation {
  description?: string;
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { content?: Record<string, Media>; headers?: Record<string, { description?: string }> }>;
}

interface DereferencedDocument {
  openapi: string;
  info: { title: string; version: string };
  servers?: unknown;
  security?: unknown;
  paths: Record<string, Record<string, Operation | unknown>>;
  components: { securitySchemes?: unknown };
}

function isOperation(value: unknown): value is Operation & { responses: NonNullable<Operation['responses']> } {
  return typeof value === 'object' && value !== null && 'responses' in value;
}

function dropSchemaWhereExamples(content: Record<string, Media> | undefined): void {
  for (const media of Object.values(content ?? {})) {
    if (media.examples !== undefined || media.example !== undefined) delete media.schema;
  }
}

export function reduceForDredd(document: DereferencedDocument): DereferencedDocument {
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item)) {
      if (!isOperation(operation)) continue;
      delete operation.description;
      dropSchemaWhereExamples(operation.requestBody?.content);
      for (const response of Object.values(operation.responses)) {
        dropSchemaWhereExamples(response.content);
        for (const headerObject of Object.values(response.headers ?? {})) delete headerObject.description;
      }
    }
  }
  return {
    openapi: document.openapi,
    info: { title: document.info.title, version: document.info.version },
    servers: document.servers,
    security: document.security,
    paths: document.paths,
    components: { securitySchemes: document.components.securitySchemes },
  };
}

/** Writes the reduced copy of `source` to `destination`. */
export function writeDreddDescription(source: string, destination: string): void {
  const document = JSON.parse(readFileSync(source, 'utf8')) as DereferencedDocument;
  writeFileSync(destination, JSON.stringify(reduceForDredd(document)));
}
