import type { AgentStrings } from '../../agent/strings.ts';

/** Italian words of <estate-agent> (translated for home buyers: informal "tu", as Immobiliare.it and Idealista.it write; "agente", "agenzia", "valutazione"). */
export default {
  loading: 'Caricamento…',
  filling: 'La pagina è in arrivo: stiamo caricando i dati dell’agenzia. Si aggiornerà da sola.',
  notFound: 'Questa persona non fa parte del nostro team, o non ne fa più parte.',
  gone: 'Questo agente non lavora più con la nostra agenzia.',
  goneHint: 'Il nostro team sarà felice di aiutarti.',
  noAgentId: 'Nessun agente selezionato.',
  errorTitle: 'Non siamo riusciti a caricare questa pagina.',
  errorRetryLater: 'Riprova tra qualche istante.',
  retry: 'Riprova',
  meetTheTeam: 'Scopri il nostro team',
  call: 'Chiama {name}',
  email: 'Invia un’email a {name}',
  listingCount: { one: '{count} immobile disponibile', many: '{count} immobili disponibili', other: '{count} immobili disponibili' },
  about: 'Chi è {name}',
  current: 'Immobili disponibili',
  noCurrent: 'Al momento {name} non ha immobili disponibili.',
  results: 'Venduti e affittati',
  contact: 'Contatta {name}',
  messageButton: 'Scrivi a {name}',
  message: 'Invia un messaggio a {name}',
  appraisal: 'Chiedi una valutazione a {name}',
} satisfies AgentStrings;
