/** simulateCompanyFormation: drives a sandbox formation on demand (production never routes here). */
import type { SimulateFormationRequest } from '../../../generated/openapi.js';
import type { FormationEngine } from '../../formation/formation-engine.ts';
import { partnerOf, type Handlers } from '../handler.ts';

export function sandboxHandlers({ formation }: { formation: FormationEngine }): Handlers {
  return {
    async simulateCompanyFormation(context) {
      const partner = partnerOf(context);
      const request = (context.body ?? {}) as SimulateFormationRequest;
      const company = await formation.simulate(partner.id, context.pathParams.companyId as string, request.target ?? 'NEXT', request.failureReason);
      return { status: 200, payload: company };
    },
  };
}
