/**
 * Customers and companies: the session partner's customers, each with its companies; a company opens with its
 * formation (status, failure, EIN), its timeline (every webhook event the mock made for it, with how each was
 * delivered), the controls that move a sandbox formation (`simulateCompanyFormation`), and its documents, the PDF
 * shown in the page. All of it follows the mock: a formation the timeline moves shows its new status by itself.
 */
import { useState } from 'preact/hooks';
import { partnerKey } from '../../session.ts';
import { Notice, Panel } from '../../ui/layout.tsx';
import { CompanyDetail } from './company-detail.tsx';
import { CustomersPanel } from './customers-panel.tsx';

export function FormationsView() {
  const [companyId, setCompanyId] = useState<string>();
  if (!partnerKey.value) return <Notice>Customers and companies belong to a partner: enter its API key above.</Notice>;
  return (
    <div class="split">
      <CustomersPanel openCompanyId={companyId} onOpen={setCompanyId} />
      {companyId ? <CompanyDetail key={companyId} companyId={companyId} /> : <Panel title="Company">{<p class="muted">Choose a company to see its formation.</p>}</Panel>}
    </div>
  );
}
