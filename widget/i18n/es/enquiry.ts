import type { EnquiryStrings } from '../../enquiry/strings.ts';

/** Spanish words of <estate-enquiry> (translated for home buyers: "tú", neutral Spanish for Spain and Latin America; "consulta" for an enquiry, as Idealista and Zonaprop write their contact forms). */
export default {
  headingListing: 'Consulta por esta propiedad',
  headingAgent: 'Envía un mensaje',
  labelName: 'Nombre completo',
  labelEmail: 'Correo electrónico',
  labelMobile: 'Móvil / celular',
  labelMessage: 'Mensaje',
  labelOptional: '(opcional)',
  labelSubmit: 'Enviar consulta',
  hintMobile: 'Un número de Australia, Nueva Zelanda o el Reino Unido',
  errorRequired: 'Completa este campo.',
  errorEmail: 'Escribe un correo electrónico, por ejemplo name@example.com.',
  errorMobile: 'Escribe un número de teléfono de Australia, Nueva Zelanda o el Reino Unido, por ejemplo 0412 345 678.',
  errorTooLong: 'El texto es demasiado largo; acórtalo.',
  errorConsent: 'Marca esta casilla para enviar tu consulta.',
  errorRefused: 'Revisa este campo.',
  invalidMessage: 'Tu consulta no se envió: corrige los campos marcados con un mensaje.',
  sendingMessage: 'Enviando tu consulta…',
  successMessage: 'Gracias. Tu consulta se envió y el agente se pondrá en contacto contigo.',
  errorMessage:
    'Todavía no se pudo enviar tu consulta. Queda guardada en este dispositivo y se volverá a enviar automáticamente; también puedes pulsar el botón para intentarlo ahora.',
  rateLimitedMessage: 'Se enviaron demasiadas consultas desde esta conexión. La tuya queda guardada y se volverá a enviar en {seconds} segundos.',
  refusedMessage: 'Lo sentimos, no se pudo aceptar esta consulta. Ponte en contacto directamente con la inmobiliaria.',
} satisfies EnquiryStrings;
