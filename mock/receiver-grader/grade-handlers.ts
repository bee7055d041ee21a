/**
 * The admin route of the grader (`gradeWebhookReceiver`): grades the receiver behind one of the partner's endpoints,
 * at its URL, signed with its newest secret, through the fetch the mock delivers with (so that `--webhook-allow`
 * holds for the battery as for deliveries), and answers with the report.
 */
import type { FieldError } from '../../generated/openapi.js';
import { notFound, validationFailed } from '../http/api-error.ts';
import { partnerOf, type AdminHandlers } from '../pipeline/handler.ts';
import type { Store } from '../store/store.ts';
import { getEndpoint } from '../webhooks/endpoints/endpoint-records.ts';
import { GradeRefused, gradeReceiver, type GradeInputProblem, type GraderSetup } from './grade.ts';

export type ReceiverGraderServices = Pick<GraderSetup, 'contract' | 'allowed' | 'fetch'>;

export function receiverGradeHandlers(services: ReceiverGraderServices & { store: Store }): Pick<AdminHandlers, 'gradeWebhookReceiver'> {
  const { store, ...setup } = services;
  return {
    async gradeWebhookReceiver(context) {
      const { endpointId } = context.path;
      const endpoint = await store.read((tx) => getEndpoint(tx, partnerOf(context).id, endpointId));
      // Newest first: the one a receiver is given last.
      const newest = endpoint?.secrets[0];
      if (!endpoint || !newest) throw notFound(`webhook endpoint ${endpointId}`);
      const { probeUrl, only, skip } = context.body ?? {};
      try {
        const grade = await gradeReceiver({ receiverUrl: endpoint.url, secret: newest.secret, ...(probeUrl === undefined ? {} : { probeUrl }), ...(only ? { only } : {}), ...(skip ? { skip } : {}) }, setup);
        return { status: 200, payload: grade };
      } catch (error) {
        if (error instanceof GradeRefused) throw validationFailed(error.problems.map(fieldErrorOf));
        throw error;
      }
    },
  };
}

/** A refusal where the request made it: the probe and the cases in the body, the endpoint's URL through its id. */
function fieldErrorOf(problem: GradeInputProblem): FieldError {
  if (problem.subject === 'probe') return { in: 'body', field: '/probeUrl', code: problem.code, message: problem.message };
  if (problem.subject === 'only' || problem.subject === 'skip') return { in: 'body', field: `/${problem.subject}/${problem.index ?? 0}`, code: problem.code, message: problem.message };
  return { in: 'path', field: '/endpointId', code: 'E_INVALID', message: problem.message };
}
