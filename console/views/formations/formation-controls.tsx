/** The sandbox's controls of a formation (`simulateCompanyFormation`): one step, to completion, or to a failure. */
import { useState } from 'preact/hooks';
import { apiClient, problemOf, type ApiSchemas } from '../../api.ts';
import { contract } from '../../contract.ts';

type Company = ApiSchemas['Company'];

export function FormationControls({ company, onProblem }: { company: Company; onProblem: (problem: string | undefined) => void }) {
  const [failureReason, setFailureReason] = useState('');
  const simulate = async (target: 'NEXT' | 'COMPLETED' | 'FAILED') => {
    onProblem(undefined);
    const body = { target, ...(target === 'FAILED' && failureReason ? { failureReason: failureReason as ApiSchemas['FormationFailureReason'] } : {}) };
    const result = await apiClient().POST('/v1/partner/sandbox/companies/{companyId}/simulate-formation', { params: { path: { companyId: company.serviceCompanyId } }, body });
    if (!result.data) onProblem(problemOf(result));
  };
  const reasons = (contract.value?.document.components.schemas?.FormationFailureReason?.enum as string[] | undefined) ?? [];
  const final = company.status === 'COMPLETED' || company.status === 'FAILED';
  return (
    <div class="inline" role="group" aria-label="Move the formation">
      <button type="button" disabled={final} onClick={() => void simulate('NEXT')}>
        Advance one step
      </button>
      <button type="button" disabled={final} onClick={() => void simulate('COMPLETED')}>
        Complete
      </button>
      <label>
        Failure reason
        <select value={failureReason} onChange={(event) => setFailureReason((event.currentTarget as HTMLSelectElement).value)}>
          <option value="">Default</option>
          {reasons.map((reason) => (
            <option value={reason}>{reason}</option>
          ))}
        </select>
      </label>
      <button type="button" disabled={final} onClick={() => void simulate('FAILED')}>
        Fail
      </button>
    </div>
  );
}
