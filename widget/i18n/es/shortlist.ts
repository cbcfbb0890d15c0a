import type { ShortlistStrings } from '../../shortlist/strings.ts';

/** Spanish words of <estate-shortlist> (translated for home buyers: "tú", neutral Spanish for Spain and Latin America; "favoritos" for the kept homes, as Idealista and Zonaprop call them). */
export default {
  count: {
    one: '{count} propiedad en tus favoritos',
    many: '{count} propiedades en tus favoritos',
    other: '{count} propiedades en tus favoritos',
  },
  emptyTitle: 'Todavía no tienes favoritos.',
  emptyHint: 'Pulsa el corazón de una propiedad para guardarla aquí. Tus favoritos se quedan en este dispositivo.',
  listLabel: 'Propiedades favoritas',
  priceFallback: 'Consultar precio',
  checking: 'Comprobando…',
  statusUnderOffer: 'En negociación',
  statusSold: 'Vendido',
  statusLeased: 'Alquilado',
  statusGone: 'Ya no está en el sitio web',
  statusUnknown: 'No se pudo comprobar en este momento',
  remove: 'Quitar',
  removeName: 'Quitar {address} de tus favoritos',
  removed: '{address} se quitó de tus favoritos.',
  enquireHeading: 'Consulta por estas propiedades',
  enquireIntro: 'Se envía una consulta al agente de cada propiedad que sigue en venta o en alquiler.',
  enquireNone: 'Ninguna de tus propiedades favoritas sigue en venta o en alquiler, así que no hay a quién consultar.',
  defaultMessage: 'Me interesa esta propiedad. Por favor, envíame más información.',
  submit: { one: 'Enviar {count} consulta', many: 'Enviar {count} consultas', other: 'Enviar {count} consultas' },
  sending: 'Enviando…',
  sent: 'Consulta enviada',
  waiting: 'Todavía no se envió: queda guardada en este dispositivo y se volverá a enviar automáticamente.',
  waitingFor: 'Todavía no se envió: se volverá a enviar automáticamente en {seconds} segundos.',
  refused: 'No aceptada: {reason}',
  summaryAllSent: {
    one: 'Tu consulta se envió. El agente se pondrá en contacto contigo.',
    many: 'Tus {count} consultas se enviaron. Los agentes se pondrán en contacto contigo.',
    other: 'Tus {count} consultas se enviaron. Los agentes se pondrán en contacto contigo.',
  },
  summaryPartial: 'Se enviaron {sent} de {total} consultas. Revisa cada propiedad para las demás.',
} satisfies ShortlistStrings;
