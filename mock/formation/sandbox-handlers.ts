/** simulateCompanyFormation: drives a sandbox formation on demand (production never routes here). */
import { partnerOf, type Handlers } from '../pipeline/handler.ts';
import type { FormationEngine } from './formation-engine.ts';

export function sandboxHandlers({ formation }: { formation: FormationEngine }): Pick<Handlers, 'simulateCompanyFormation'> {
  return {
    async simulateCompanyFormation(context) {
      const partner = partnerOf(context);
      const request = context.body ?? {};
      const company = await formation.simulate(partner.id, context.path.companyId, request.target ?? 'NEXT', request.failureReason);
      return { status: 200, payload: company };
    },
  };
}
