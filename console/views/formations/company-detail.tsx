/**
 * One company, as the mock holds it now: its formation, the controls that move it, its timeline of webhook events
 * and its documents, each read again when the mock says it changed.
 */
import { useEffect, useState } from 'preact/hooks';
import { apiClient, problemOf, type AdminSchemas, type ApiSchemas } from '../../api.ts';
import { useChanges } from '../../live/changes.ts';
import { Notice, Panel } from '../../ui/layout.tsx';
import { CompanyDocuments } from './company-documents.tsx';
import { eventsOf } from './company-events.ts';
import { CompanyTimeline } from './company-timeline.tsx';
import { FormationControls } from './formation-controls.tsx';

type Company = ApiSchemas['Company'];
type Document = ApiSchemas['Document'];
type MockEvent = AdminSchemas['MockEvent'];

export function CompanyDetail({ companyId }: { companyId: string }) {
  const [company, setCompany] = useState<Company>();
  const [events, setEvents] = useState<MockEvent[]>([]);
  const [documents, setDocuments] = useState<Document[]>([]);
  const [problem, setProblem] = useState<string>();
  const changed = useChanges(['companies', 'documents', 'events']);
  useEffect(() => {
    const api = apiClient();
    void api.GET('/v1/partner/companies/{companyId}', { params: { path: { companyId } } }).then((result) => (result.data ? setCompany(result.data.payload) : setProblem(problemOf(result))));
    void api.GET('/v1/partner/companies/{companyId}/documents', { params: { path: { companyId } } }).then((result) => result.data && setDocuments(result.data.payload.data));
    void eventsOf(companyId).then(setEvents, (error: unknown) => setProblem(String(error)));
  }, [companyId, changed]);
  return (
    <Panel title={company ? company.name : 'Company'}>
      {problem ? <Notice kind="error">{problem}</Notice> : null}
      {company ? (
        <>
          <FormationFacts company={company} />
          <FormationControls company={company} onProblem={setProblem} />
        </>
      ) : null}
      <CompanyTimeline company={company} events={events} />
      <CompanyDocuments companyId={companyId} documents={documents} onProblem={setProblem} />
    </Panel>
  );
}

function FormationFacts({ company }: { company: Company }) {
  return (
    <dl class="facts">
      <dt>Status</dt>
      <dd>
        <span class={`formation formation-${company.status}`}>{company.status}</span>
        {company.failure ? ` — ${company.failure.reason}: ${company.failure.message}` : ''}
      </dd>
      <dt>Company</dt>
      <dd>
        {company.serviceCompanyId} · {company.entityType} · {company.state}
      </dd>
      <dt>EIN</dt>
      <dd>{company.ein ?? '—'}</dd>
      <dt>Filed</dt>
      <dd>{company.filingDate ?? '—'}</dd>
    </dl>
  );
}
