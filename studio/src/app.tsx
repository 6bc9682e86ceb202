import { useEffect, useState } from 'react';
import { SIGNED_OUT_EVENT } from './api-client';
import { forgetApiKey, storedApiKey, storeApiKey } from './api-key';
import { hrefOf, useHashRoute } from './hash-route';
import { AssetsPage } from './pages/assets-page';
import { BatchesPage } from './pages/batches-page';
import { KeyPage } from './pages/key-page';
import { ResultsPage } from './pages/results-page';
import { TemplatePage } from './pages/template-page';
import { TemplatesPage } from './pages/templates-page';
import { UsagePage } from './pages/usage-page';

export const App = () => {
  const [key, setKey] = useState(storedApiKey);
  const [refusal, setRefusal] = useState<string | null>(null);
  const route = useHashRoute();

  // A 401 or 403 anywhere forgets the key (api-client); the studio then asks for one again, saying why.
  useEffect(() => {
    const signedOut = (event: Event) => {
      setRefusal(event instanceof CustomEvent && typeof event.detail === 'string' ? event.detail : null);
      setKey(null);
    };
    window.addEventListener(SIGNED_OUT_EVENT, signedOut);
    return () => window.removeEventListener(SIGNED_OUT_EVENT, signedOut);
  }, []);

  if (!key) {
    return (
      <KeyPage
        refusal={refusal}
        onKey={(entered) => {
          storeApiKey(entered);
          setRefusal(null);
          setKey(entered);
        }}
      />
    );
  }

  const current = route.page === 'template' ? 'templates' : route.page;
  return (
    <>
      <header className="bar">
        <strong>Template studio</strong>
        <nav aria-label="Studio">
          {(['templates', 'assets', 'batches', 'results', 'usage'] as const).map((page) => (
            <a key={page} href={hrefOf({ page })} aria-current={current === page ? 'page' : undefined}>
              {page[0]?.toUpperCase()}
              {page.slice(1)}
            </a>
          ))}
        </nav>
        <button
          type="button"
          onClick={() => {
            forgetApiKey();
            setKey(null);
          }}
        >
          Forget key
        </button>
      </header>
      <main>
        {route.page === 'templates' && <TemplatesPage />}
        {route.page === 'template' && <TemplatePage key={route.id} id={route.id} />}
        {route.page === 'assets' && <AssetsPage />}
        {route.page === 'batches' && <BatchesPage open={route.batch ?? null} />}
        {route.page === 'results' && <ResultsPage />}
        {route.page === 'usage' && <UsagePage />}
      </main>
    </>
  );
};
