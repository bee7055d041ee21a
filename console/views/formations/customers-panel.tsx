/** The partner's customers, newest first, each with its companies and their formation status. */
import { useEffect, useState } from 'preact/hooks';
import { apiClient, problemOf, type ApiSchemas } from '../../api.ts';
import { useChanges } from '../../live/changes.ts';
import { partnerKey } from '../../session.ts';
import { Notice, Panel } from '../../ui/layout.tsx';

type Customer = ApiSchemas['Customer'];

export function CustomersPanel({ openCompanyId, onOpen }: { openCompanyId: string | undefined; onOpen: (companyId: string) => void }) {
  const [customers, setCustomers] = useState<Customer[]>([]);
  const [problem, setProblem] = useState<string>();
  const changed = useChanges(['customers', 'companies']);
  useEffect(() => {
    void apiClient()
      .GET('/v1/partner/customers', { params: { query: { limit: 100 } } })
      .then((result) => (result.data ? (setCustomers(result.data.payload.data), setProblem(undefined)) : setProblem(problemOf(result))));
  }, [partnerKey.value, changed]);
  return (
    <Panel title="Customers">
      {problem ? <Notice kind="error">{problem}</Notice> : null}
      {customers.length === 0 ? <p class="muted">No customers yet: create one with Try, or through the API.</p> : null}
      <ul class="customers">
        {customers.map((customer) => (
          <li key={customer.serviceCustomerId}>
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
                <li key={company.serviceCompanyId}>
                  <button type="button" class={`link${company.serviceCompanyId === openCompanyId ? ' open' : ''}`} aria-pressed={company.serviceCompanyId === openCompanyId} onClick={() => onOpen(company.serviceCompanyId)}>
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
  );
}
