import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App } from './App.js';
import { bindInformersTo, preloadFirstChunk } from './data/informers.js';
import './styles.css';
import { applyInitialTheme } from './lib/theme.js';

const queryClient = new QueryClient({ defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } } });
bindInformersTo(queryClient);
preloadFirstChunk(location.pathname, location.search);

applyInitialTheme();
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
