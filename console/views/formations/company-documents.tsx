/** A company's documents, each shown as its PDF in the page from the short-lived URL the API gives. */
import { useState } from 'preact/hooks';
import { apiClient, problemOf, type ApiSchemas } from '../../api.ts';

type Document = ApiSchemas['Document'];

export function CompanyDocuments({ companyId, documents, onProblem }: { companyId: string; documents: Document[]; onProblem: (problem: string) => void }) {
  const [shown, setShown] = useState<{ name: string; url: string }>();
  const open = async (document: Document) => {
    const result = await apiClient().GET('/v1/partner/companies/{companyId}/documents/{documentId}', { params: { path: { companyId, documentId: document.documentId } } });
    if (!result.data) return onProblem(problemOf(result));
    setShown({ name: document.type, url: result.data.payload.downloadUrl });
  };
  return (
    <>
      <h3>Documents</h3>
      {documents.length === 0 ? <p class="muted">None yet: documents are ready once the formation completes.</p> : null}
      <ul class="documents">
        {documents.map((document) => (
          <li key={document.documentId}>
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
    </>
  );
}
