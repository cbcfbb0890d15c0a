import type { EnquiryStrings } from '../../enquiry/strings.ts';

/** Italian words of <estate-enquiry> (translated for home buyers: informal "tu", as Immobiliare.it and Idealista.it write their contact forms). */
export default {
  headingListing: 'Chiedi informazioni su questo immobile',
  headingAgent: 'Invia un messaggio',
  labelName: 'Nome e cognome',
  labelEmail: 'Indirizzo email',
  labelMobile: 'Cellulare',
  labelMessage: 'Messaggio',
  labelOptional: '(facoltativo)',
  labelSubmit: 'Invia richiesta',
  hintMobile: 'Un numero australiano, neozelandese o britannico',
  errorRequired: 'Compila questo campo.',
  errorEmail: 'Inserisci un indirizzo email, ad esempio name@example.com.',
  errorMobile: 'Inserisci un numero di telefono australiano, neozelandese o britannico, ad esempio 0412 345 678.',
  errorTooLong: 'Il testo è troppo lungo: accorcialo.',
  errorConsent: 'Spunta questa casella per inviare la tua richiesta.',
  errorRefused: 'Controlla di nuovo questo campo.',
  invalidMessage: 'La tua richiesta non è stata inviata: correggi i campi segnalati.',
  sendingMessage: 'Invio della richiesta in corso…',
  successMessage: 'Grazie! La tua richiesta è stata inviata e l’agente ti contatterà.',
  errorMessage:
    'Non è stato ancora possibile inviare la tua richiesta. È salvata su questo dispositivo e verrà inviata di nuovo automaticamente; puoi anche premere il pulsante per riprovare subito.',
  rateLimitedMessage: 'Da questa connessione sono state inviate troppe richieste. La tua è salvata e verrà inviata di nuovo tra {seconds} secondi.',
  refusedMessage: 'Spiacenti, non è stato possibile accettare questa richiesta. Contatta direttamente l’agenzia.',
} satisfies EnquiryStrings;
