import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';

// React decides property or attribute when it renders, by `name in element`. Until the widget
// script has defined the tags, every prop would become an attribute (an array as "[object
// Object]"), so render once they are defined. (README: "Rough edges".)
const tags = ['estate-listings', 'estate-listing', 'estate-enquiry'];
Promise.all(tags.map((tag) => customElements.whenDefined(tag))).then(() => {
  const script = document.querySelector<HTMLScriptElement>('script[src$="/widget.js"]')!;
  createRoot(document.getElementById('root')!).render(<App relayUrl={new URL('.', script.src).href} />);
});
