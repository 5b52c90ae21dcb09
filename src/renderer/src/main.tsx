import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app.js';
import { prefetchSessions } from './store/sessions-slice.js';
import './styles.css';
// The graph, sidebar and keyboard styles: the first screen's, with the rest of its styles.
import './wingraph.css';

// The list is asked for while React makes its first render, not after it.
prefetchSessions();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
