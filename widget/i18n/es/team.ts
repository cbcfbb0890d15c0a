import type { TeamStrings } from '../../team/strings.ts';

/** Spanish words of <estate-team> (translated for home buyers: "tú", neutral Spanish for Spain and Latin America; "inmobiliaria" for the agency). */
export default {
  listLabel: 'Nuestro equipo',
  loading: 'Cargando el equipo…',
  filling: 'El equipo está en camino: se están cargando los datos de la inmobiliaria. Esta página se actualizará sola.',
  emptyTitle: 'Todavía no hay nadie que mostrar aquí.',
  emptyHint: 'Ponte en contacto con la oficina.',
  errorTitle: 'No pudimos cargar el equipo.',
  errorRetryLater: 'Vuelve a intentarlo en un momento.',
  retry: 'Reintentar',
  listingCount: {
    one: '{count} propiedad en el mercado',
    many: '{count} propiedades en el mercado',
    other: '{count} propiedades en el mercado',
  },
  call: 'Llamar a {name}',
} satisfies TeamStrings;
