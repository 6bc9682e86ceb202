import { useEffect, useState } from 'react';
import { forgetApiKey, storedApiKey, storeApiKey } from './api-key';
import { hrefOf, useHashRoute } from './hash-route';
import { AssetsPage } from './pages/assets-page';
import { KeyPage } from './pages/key-page';
import { ResultsPage } from './pages/results-page';
import { TemplatePage } from './pages/template-page';
import { TemplatesPage } from './pages/templates-page';
import { UsagePage } from './pages/usage-page';

export const App = () => {
  const [key, setKey] = useState(storedApiKey);
  const route = useHashRoute();

  // A 401 anywhere forgets the key (api-client); the studio then asks for one again.
  useEffect(() => {
    const signedOut = () => setKey(null);
    window.addEventListener('studio:signed-out', signedOut);
    return () => window.removeEventListener('studio:signed-out', signedOut);
  }, []);

  if (!key) {
    return (
      <KeyPage
        onKey={(entered) => {
          storeApiKey(entered);
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
          {(['templates', 'assets', 'results', 'usage'] as const).map((page) => (
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
        {route.page === 'results' && <ResultsPage />}
        {route.page === 'usage' && <UsagePage />}
      </main>
    </>
  );
};
