import type { TeamStrings } from '../../team/strings.ts';

/** Italian words of <estate-team> (translated for home buyers: informal "tu", "agenzia" for the office). */
export default {
  listLabel: 'Il nostro team',
  loading: 'Caricamento del team…',
  filling: 'Il team è in arrivo: stiamo caricando i dati dell’agenzia. La pagina si aggiornerà da sola.',
  emptyTitle: 'Ancora nessuno da mostrare qui.',
  emptyHint: 'Contatta l’agenzia.',
  errorTitle: 'Non siamo riusciti a caricare il team.',
  errorRetryLater: 'Riprova tra qualche istante.',
  retry: 'Riprova',
  listingCount: { one: '{count} immobile disponibile', many: '{count} immobili disponibili', other: '{count} immobili disponibili' },
  call: 'Chiama {name}',
} satisfies TeamStrings;
