/**
 * A *Changes* page in the reference docs, made from CHANGELOG.md: its releases (and what is not released yet) as a
 * section of the docs' introduction, which Redoc lists in its sidebar beside the guides. Added to the copy the docs
 * are built from, like the request samples: the contract itself does not carry its history.
 */
import type { ContractDocument, JsonObject } from '../contract-model/document.ts';

export function withChangesPage(document: ContractDocument, changelog: string): ContractDocument {
  const body = changelog
    // Its own title goes: the section has one. Notes for the maintainers (HTML comments) are not for readers.
    .replace(/^# .*\n+/, '')
    .replace(/<!--[\s\S]*?-->\n*/g, '')
    .trim();
  const info = document.info as JsonObject;
  return { ...document, info: { ...info, description: `${String(info.description ?? '').trimEnd()}\n\n# Changes\n\n${body}\n` } };
}
