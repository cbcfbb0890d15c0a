import type { AlertWords } from './en-AU.ts';

/** Italian words of the saved search's confirmation e-mail and page (informal "tu", "avvisi" for alerts, "quartiere" for a suburb; the widget's terms). */
export const alertWordsIt: AlertWords = {
  homesForSale: 'case in vendita',
  homesForLease: 'case in affitto',
  homesForSaleOrLease: 'case in vendita o in affitto',
  inSuburb: '{homes} a {suburb}',
  inSuburbs: '{homes} a {suburbs} o {last}',
  listSeparator: ', ',
  minBeds: '{count}+ camere da letto',
  minBaths: '{count}+ bagni',
  minCars: '{count}+ posti auto',
  priceBetween: 'da {min} a {max}',
  priceFrom: 'da {min}',
  priceUpTo: 'fino a {max}',
  subject: 'Conferma gli avvisi immobiliari di {agency}',
  hello: 'Ciao {name},',
  asked: 'Qualcuno, speriamo tu, ha chiesto a {agency} di inviare a questo indirizzo email riguardanti {what}.',
  openLink: 'Per attivare questi avvisi, apri questo link e premi «Conferma gli avvisi»:',
  orOpenLink: 'Oppure apri questo link:',
  confirmButton: 'Conferma gli avvisi',
  linkWorksUntil:
    'Il link è valido fino a {date}. Se non hai chiesto nessun avviso, ignora questa email: non riceverai nient’altro e a quel punto la richiesta verrà cancellata.',
  askTitle: 'Conferma i tuoi avvisi immobiliari',
  askBody: 'Dopo la conferma, {agency} ti invierà email riguardanti {what}.',
  youAgreedTo: 'Hai accettato:',
  notYou: 'Non sei tu? Chiudi questa pagina: non verrà inviato nulla e la richiesta verrà cancellata alla scadenza del suo link.',
  settingUpTitle: 'Grazie: i tuoi avvisi sono confermati',
  settingUpBody: '{agency} sta attivando i tuoi avvisi per {what}. Puoi chiudere questa pagina.',
  checkAgain: 'Controlla di nuovo',
  onTitle: 'I tuoi avvisi sono attivi',
  onBody: '{agency} ti invierà email riguardanti {what}. Ogni avviso contiene un link per interromperli.',
  unsubscribedTitle: 'Non ti abbiamo iscritto',
  unsubscribedBody: 'In precedenza hai chiesto a {agency} di non inviarti email, e lo rispettiamo: non ti abbiamo iscritto di nuovo.',
  unsubscribedAsk: 'Se alla fine desideri ricevere questi avvisi, chiedi a {agency} di attivarli per te.',
  stuckTitle: 'I tuoi avvisi sono confermati',
  stuckBody:
    'La tua conferma è stata registrata, ma l’attivazione dei tuoi avvisi per {what} sta richiedendo più tempo del dovuto. Abbiamo avvisato {agency}, che risolverà il problema.',
  goneTitle: 'Questo link è scaduto',
  goneBody:
    'Questo link di conferma è scaduto o non è riconosciuto. Per ricevere gli avvisi, salva di nuovo la ricerca sul sito di {agency}: ti invieremo un nuovo link via email.',
};
