import { useEffect, useState } from 'react';
import { languageOf, loadLanguage } from './highlight.js';

/** The file's highlight.js language once it is loaded (null before, and for unknown types). */
export function useLanguage(path: string | null): string | null {
  const lang = path ? languageOf(path) : null;
  const [ready, setReady] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    if (lang) void loadLanguage(lang).then((ok) => live && ok && setReady(lang));
    return () => {
      live = false;
    };
  }, [lang]);
  return ready === lang ? lang : null;
}
