/**
 * Customers and companies: the session partner's customers, each with its companies; a company opens with its
 * formation (status, failure, EIN), its timeline (every webhook event the mock made for it, with how each was
 * delivered), the controls that move a sandbox formation (`simulateCompanyFormation`), and its documents, the PDF
 * shown in the page.
 */
import { useEffect, useState } from 'preact/hooks';
import { adminClient, apiClient, problemOf, type AdminSchemas, type ApiSchemas } from '../api.ts';
import { contract } from '../contract.ts';
import { partnerKey } from '../session.ts';
import { Json, Notice, Panel, When } from '../ui.tsx';

type Customer = ApiSchemas['Customer'];
type Company = ApiSchemas['Company'];
type Document = ApiSchemas['Document'];
type MockEvent = AdminSchemas['MockEvent'];

export function FormationsView() {
  const [customers, setCustomers] = useState<Customer[]>([]);
  const [companyId, setCompanyId] = useState<string>();
  const [problem, setProblem] = useState<string>();
  const [version, setVersion] = useState(0);
  const key = partnerKey.value;
  useEffect(() => {
    if (!key) return;
    void apiClient()
      .GET('/v1/partner/customers', { params: { query: { limit: 100 } } })
      .then((result) => (result.data ? (setCustomers(result.data.payload.data), setProblem(undefined)) : setProblem(problemOf(result))));
  }, [key, version]);
  if (!key) return <Notice>Customers and companies belong to a partner: enter its API key above.</Notice>;
  return (
    <div class="split">
      <Panel
        title="Customers"
        actions={
          <button type="button" onClick={() => setVersion(version + 1)}>
            Refresh
          </button>
        }
      >
        {problem ? <Notice kind="error">{problem}</Notice> : null}
        {customers.length === 0 ? <p class="muted">No customers yet: create one with Try, or through the API.</p> : null}
        <ul class="customers">
          {customers.map((customer) => (
            <li>
              <p>
                <b>
                  {customer.firstName} {customer.lastName}
                </b>{' '}
                <span class="muted">
                  {customer.email} · {customer.serviceCustomerId}
                </span>
              </p>
              <ul class="companies">
                {customer.companies.map((company) => (
                  <li>
                    <button type="button" class={`link${company.serviceCompanyId === companyId ? ' open' : ''}`} aria-pressed={company.serviceCompanyId === companyId} onClick={() => setCompanyId(company.serviceCompanyId)}>
                      {company.name}
                    </button>{' '}
                    <span class="muted">
                      {company.entityType} · {company.state}
                    </span>{' '}
                    <span class={`formation formation-${company.status}`}>{company.status}</span>
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ul>
      </Panel>
      {companyId ? <CompanyDetail key={companyId} companyId={companyId} onChange={() => setVersion(version + 1)} /> : <Panel title="Company">{<p class="muted">Choose a company to see its formation.</p>}</Panel>}
    </div>
  );
}

/** Pages of the partner's events read at most, newest first, looking for a company's. */
const maxEventPages = 10;

/**
 * The company's events, oldest first: the partner's events, newest first a page at a time, filtered, then turned
 * around (their times are to the second, so the journal's order is the one to keep).
 */
async function eventsOf(companyId: string): Promise<MockEvent[]> {
  const found: MockEvent[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < maxEventPages; page += 1) {
    const result = await adminClient().GET('/_mock/events', { params: { query: { limit: 100, ...(cursor ? { cursor } : {}) } } });
    if (!result.data) throw new Error(problemOf(result));
    found.push(...result.data.payload.data.filter((event) => (event.payload.data as { serviceCompanyId?: string } | undefined)?.serviceCompanyId === companyId));
    if (!result.data.payload.nextCursor) break;
    cursor = result.data.payload.nextCursor;
  }
  return found.reverse();
}

function CompanyDetail({ companyId, onChange }: { companyId: string; onChange: () => void }) {
  const [company, setCompany] = useState<Company>();
  const [events, setEvents] = useState<MockEvent[]>([]);
  const [documents, setDocuments] = useState<Document[]>([]);
  const [shown, setShown] = useState<{ name: string; url: string }>();
  const [problem, setProblem] = useState<string>();
  const [failureReason, setFailureReason] = useState('');
  const [version, setVersion] = useState(0);
  useEffect(() => {
    const api = apiClient();
    void api.GET('/v1/partner/companies/{companyId}', { params: { path: { companyId } } }).then((result) => (result.data ? setCompany(result.data.payload) : setProblem(problemOf(result))));
    void api.GET('/v1/partner/companies/{companyId}/documents', { params: { path: { companyId } } }).then((result) => result.data && setDocuments(result.data.payload.data));
    void eventsOf(companyId).then(setEvents, (error: unknown) => setProblem(String(error)));
  }, [companyId, version]);

  const simulate = async (target: 'NEXT' | 'COMPLETED' | 'FAILED') => {
    setProblem(undefined);
    const body = { target, ...(target === 'FAILED' && failureReason ? { failureReason: failureReason as ApiSchemas['FormationFailureReason'] } : {}) };
    const result = await apiClient().POST('/v1/partner/sandbox/companies/{companyId}/simulate-formation', { params: { path: { companyId } }, body });
    if (!result.data) setProblem(problemOf(result));
    setVersion(version + 1);
    onChange();
  };
  const open = async (document: Document) => {
    const result = await apiClient().GET('/v1/partner/companies/{companyId}/documents/{documentId}', { params: { path: { companyId, documentId: document.documentId } } });
    if (!result.data) return setProblem(problemOf(result));
    setShown({ name: document.type, url: result.data.payload.downloadUrl });
  };
  const reasons = (contract.value?.document.components.schemas?.FormationFailureReason?.enum as string[] | undefined) ?? [];
  const final = company?.status === 'COMPLETED' || company?.status === 'FAILED';
  return (
    <Panel title={company ? company.name : 'Company'}>
      {problem ? <Notice kind="error">{problem}</Notice> : null}
      {company ? (
        <>
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
        </>
      ) : null}
      <h3>Timeline</h3>
      <ol class="timeline">
        {company ? (
          <li>
            <When at={company.createdAt} /> created ({company.status === 'PENDING' ? 'pending' : 'submitted for formation'})
          </li>
        ) : null}
        {events.map((event) => (
          <li>
            <details>
              <summary>
                <When at={event.createdAt} /> <b>{event.type}</b>{' '}
                {event.deliveries.map((delivery) => (
                  <span class={`tag delivery-${delivery.state}`}>
                    {delivery.endpointId}: {delivery.state}
                  </span>
                ))}
              </summary>
              <Json value={event.payload} label={`Payload of ${event.type}`} />
            </details>
          </li>
        ))}
      </ol>
      <h3>Documents</h3>
      {documents.length === 0 ? <p class="muted">None yet: documents are ready once the formation completes.</p> : null}
      <ul class="documents">
        {documents.map((document) => (
          <li>
            {document.type} <span class="muted">{document.documentId}</span>{' '}
            <button type="button" onClick={() => void open(document)}>
              Show PDF
            </button>
          </li>
        ))}
      </ul>
      {shown ? (
        <figure class="pdf">
          <iframe src={shown.url} title={`Document ${shown.name}`} />
          <figcaption>
            <a href={shown.url} target="_blank" rel="noopener">
              Open {shown.name} in a new tab
            </a>
          </figcaption>
        </figure>
      ) : null}
    </Panel>
  );
}
