import type { SavedSearchStrings } from '../../saved-search/strings.ts';

/** Italian words of <estate-saved-search> (translated for home buyers: informal "tu", "avvisi" for alerts as Immobiliare.it says; the search in words reads "in vendita, a …, da …"). */
export default {
  heading: 'Attiva gli avvisi per questa ricerca',
  submit: 'Attiva gli avvisi',
  consent: 'Accetto che l’agenzia mi invii via email i nuovi immobili che corrispondono a questa ricerca e mi contatti in merito.',
  intro: 'Ti invieremo i nuovi immobili che corrispondono a: {search}.',
  anyHome: 'qualsiasi immobile',
  forSale: 'in vendita',
  forLease: 'in affitto',
  inSuburb: 'a {suburb}',
  inDrawnArea: 'a {suburb} (i quartieri compresi nella tua zona)',
  minPrice: 'da {price}',
  maxPrice: 'fino a {price}',
  minBeds: '{count}+ camere da letto',
  minBaths: '{count}+ bagni',
  minCars: '{count}+ posti auto',
  success: 'Grazie! La tua ricerca è stata salvata presso l’agenzia: riceverai i nuovi immobili che le corrispondono.',
  successEmail:
    'Ci sei quasi: controlla la casella di posta di {email}. Troverai un’email dell’agenzia con un link che attiva i tuoi avvisi. Finché non lo apri, non ti invieremo nulla.',
  successAgent: 'Grazie! L’agenzia confermerà gli avvisi con te prima di inviartene.',
  notOffered:
    'Spiacenti, al momento gli avvisi non sono disponibili su questo sito, quindi i tuoi dati non sono stati salvati. Contatta direttamente l’agenzia per sapere dei nuovi immobili.',
  areaLoading: 'nella zona della mappa (ricerca dei quartieri…)',
  areaLast: '{first} o {last}',
  areaMore: 'La zona della mappa comprende altri {count} quartieri: gli avvisi seguono i {max} con più immobili. Ingrandisci la mappa per sceglierne meno.',
  areaEmpty: 'Nessun immobile nella zona della mappa indica ancora il proprio quartiere. Sposta o allarga la mappa, oppure scegli un quartiere.',
  areaFailed: 'Al momento non è stato possibile trovare i quartieri della zona della mappa. Invia di nuovo per riprovare.',
  areaWait: 'Stiamo cercando i quartieri della zona della mappa; invia di nuovo tra un momento.',
  surroundingLoading: 'a {suburbs} e nei quartieri vicini (ricerca in corso…)',
  surroundingFailed: 'Al momento non è stato possibile trovare i quartieri vicini ai tuoi. Invia di nuovo per riprovare.',
  surroundingWait: 'Stiamo cercando i quartieri vicini ai tuoi; invia di nuovo tra un momento.',
  surroundingMore: 'Gli avvisi seguono {max} quartieri: i tuoi e i più vicini; altri {count} più lontani restano esclusi.',
  suggestionsLabel: 'Forse cercavi:',
} satisfies SavedSearchStrings;
