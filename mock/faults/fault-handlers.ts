/** The admin API's routes of faults (`/_mock/faults`): list, arm, clear; scoped to the partner whose key is sent. */
import type { components } from '../../generated/mock-admin/openapi.js';
import { notFound, validationFailed } from '../http/api-error.ts';
import type { AdminHandlers } from '../pipeline/handler.ts';
import { problemWith, type AnswersOf } from '../forced-answers/force-answer.ts';
import { choiceOf, type Fault, type FaultRegistry } from './faults.ts';

/**
 * An arm request as the validator let it through. openapi-typescript renders the schema's "status or delayMs"
 * (a top-level `anyOf` of `required` lists) as `unknown`; these are its properties.
 */
type FaultArmRequest = Pick<components['schemas']['Fault'], 'operationId' | 'status' | 'example' | 'delayMs'> & { count?: number | null };

export function faultHandlers(faults: FaultRegistry, apiOperationIds: readonly string[], answersOf: AnswersOf): Pick<AdminHandlers, 'listFaults' | 'armFault' | 'clearFaults' | 'disarmFault'> {
  const faultView = (fault: Fault & { partner?: string }) => ({
    id: fault.id,
    operationId: fault.operationId,
    ...(fault.status === undefined ? {} : { status: fault.status }),
    ...(fault.example === undefined ? {} : { example: fault.example }),
    ...(fault.delayMs === undefined ? {} : { delayMs: fault.delayMs }),
    count: fault.count,
    partner: fault.partner ?? null,
  });
  const faultList = (partnerId?: string) => ({ data: faults.list(partnerId).map(faultView) });
  return {
    listFaults: ({ partner }) => ({ status: 200, payload: faultList(partner?.id) }),

    armFault({ partner, body: request }) {
      const body = request as FaultArmRequest;
      if (!apiOperationIds.includes(body.operationId)) {
        throw validationFailed([{ in: 'body', field: '/operationId', code: 'E_NOT_ALLOWED_VALUE', message: `Not an operation of the contract served: use one of ${apiOperationIds.join(', ')}.` }]);
      }
      const choice = choiceOf(body);
      const problem = choice && problemWith(body.operationId, answersOf(body.operationId), choice);
      if (problem) throw validationFailed([{ in: 'body', field: body.example === undefined ? '/status' : '/example', code: 'E_NOT_ALLOWED_VALUE', message: problem }]);
      faults.arm({
        operationId: body.operationId,
        ...(body.status === undefined ? {} : { status: body.status }),
        ...(body.example === undefined ? {} : { example: body.example }),
        ...(body.delayMs === undefined ? {} : { delayMs: body.delayMs }),
        count: body.count === undefined ? 1 : body.count,
        ...(partner ? { partnerId: partner.id, partner: partner.maskedKey } : {}),
      });
      return { status: 201, payload: faultList(partner?.id) };
    },

    clearFaults({ partner }) {
      faults.clear(partner?.id);
      return { status: 200, payload: faultList(partner?.id) };
    },

    disarmFault({ partner, path }) {
      if (!faults.disarm(path.faultId, partner?.id)) throw notFound(`fault ${path.faultId} armed for this partner`);
      return { status: 200, payload: faultList(partner?.id) };
    },
  };
}
