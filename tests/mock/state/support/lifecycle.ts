/** The webhook events of a formation that completes, in the order a receiver must get them. */
import { documentTypesFor } from '../../../../mock/documents/content.ts';

export function lifecycleOf(entityType: 'LLC' | 'CCorp'): string[] {
  return ['company.formation.submitted', 'company.formation.completed', 'company.ein.issued', ...documentTypesFor(entityType).map(() => 'document.ready')];
}
