import type { SavedSearchStrings } from '../../saved-search/strings.ts';

/** Spanish words of <estate-saved-search> (translated for home buyers: "tú", neutral Spanish for Spain and Latin America, "alertas" as Idealista and Zonaprop call them; the search in words reads "en venta, en …, desde …"). */
export default {
  heading: 'Crear una alerta para esta búsqueda',
  submit: 'Activar alertas',
  consent:
    'Acepto que la inmobiliaria me envíe por correo electrónico nuevas propiedades que coincidan con esta búsqueda y se ponga en contacto conmigo sobre ellas.',
  intro: 'Te enviaremos las nuevas propiedades que coincidan: {search}.',
  anyHome: 'cualquier propiedad',
  forSale: 'en venta',
  forLease: 'en alquiler',
  inSuburb: 'en {suburb}',
  inDrawnArea: 'en {suburb} (los barrios que abarca tu zona)',
  minPrice: 'desde {price}',
  maxPrice: 'hasta {price}',
  minBeds: '{count}+ dormitorios',
  minBaths: '{count}+ baños',
  minCars: '{count}+ estacionamientos',
  success: 'Gracias. Tu búsqueda quedó guardada en la inmobiliaria y te avisaremos de las nuevas propiedades que coincidan.',
  successEmail:
    'Ya casi está: revisa tu bandeja de entrada en {email}; te llegará un correo de la inmobiliaria con un enlace que activa tus alertas. No recibirás nada hasta que lo abras.',
  successAgent: 'Gracias. La inmobiliaria confirmará tus alertas contigo antes de enviarte ninguna.',
  notOffered:
    'Lo sentimos, las alertas no están disponibles en este sitio en este momento, así que no guardamos tus datos. Ponte en contacto directamente con la inmobiliaria para enterarte de las nuevas propiedades.',
  areaLoading: 'en la zona del mapa (buscando sus barrios…)',
  areaLast: '{first} o {last}',
  areaMore: 'La zona del mapa abarca {count} barrios más: las alertas siguen los {max} con más propiedades. Acerca el mapa para elegir menos.',
  areaEmpty: 'Ninguna propiedad de la zona del mapa indica todavía en qué barrio está. Mueve o amplía el mapa, o elige un barrio.',
  areaFailed: 'No se pudieron encontrar los barrios de la zona del mapa en este momento. Vuelve a enviar para intentarlo de nuevo.',
  areaWait: 'Buscando los barrios de la zona del mapa; vuelve a enviar en un momento.',
  surroundingLoading: 'en {suburbs} y los barrios cercanos (buscándolos…)',
  surroundingFailed: 'No se pudieron encontrar los barrios cercanos a los tuyos en este momento. Vuelve a enviar para intentarlo de nuevo.',
  surroundingWait: 'Buscando los barrios cercanos a los tuyos; vuelve a enviar en un momento.',
  surroundingMore: 'Las alertas siguen {max} barrios: los tuyos y los más cercanos a ellos; quedan fuera {count} más, más alejados.',
  suggestionsLabel: 'Quizás quisiste decir:',
} satisfies SavedSearchStrings;
