import type { AgentStrings } from '../../agent/strings.ts';

/** Spanish words of <estate-agent> (translated for home buyers: "tú", neutral Spanish for Spain and Latin America; "agente", "inmobiliaria", "valoración" as Idealista, Fotocasa and Zonaprop write). */
export default {
  loading: 'Cargando…',
  filling: 'La página está en camino: se están cargando los datos de la inmobiliaria. Se actualizará sola.',
  notFound: 'Esta persona no forma parte de nuestro equipo, o ya no.',
  gone: 'Este agente ya no trabaja en la inmobiliaria.',
  goneHint: 'Nuestro equipo te ayudará con gusto.',
  noAgentId: 'No se eligió ningún agente.',
  errorTitle: 'No pudimos cargar esta página.',
  errorRetryLater: 'Vuelve a intentarlo en un momento.',
  retry: 'Reintentar',
  meetTheTeam: 'Conoce al equipo',
  call: 'Llamar a {name}',
  email: 'Escribir a {name}',
  listingCount: {
    one: '{count} propiedad en el mercado',
    many: '{count} propiedades en el mercado',
    other: '{count} propiedades en el mercado',
  },
  about: 'Sobre {name}',
  current: 'En el mercado',
  noCurrent: '{name} no tiene propiedades en el mercado en este momento.',
  results: 'Vendidas y alquiladas',
  contact: 'Contactar con {name}',
  messageButton: 'Enviar mensaje a {name}',
  message: 'Envía un mensaje a {name}',
  appraisal: 'Pide una valoración a {name}',
} satisfies AgentStrings;
