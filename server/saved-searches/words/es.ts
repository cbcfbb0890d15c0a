import type { AlertWords } from './en-AU.ts';

/** Spanish words of the saved search's confirmation e-mail and page ("tú", neutral Spanish for Spain and Latin America, "alertas", "barrio" for a suburb; the widget's terms). */
export const alertWordsEs: AlertWords = {
  homesForSale: 'propiedades en venta',
  homesForLease: 'propiedades en alquiler',
  homesForSaleOrLease: 'propiedades en venta o alquiler',
  inSuburb: '{homes} en {suburb}',
  inSuburbs: '{homes} en {suburbs} o {last}',
  listSeparator: ', ',
  minBeds: '{count}+ dormitorios',
  minBaths: '{count}+ baños',
  minCars: '{count}+ estacionamientos',
  priceBetween: 'de {min} a {max}',
  priceFrom: 'desde {min}',
  priceUpTo: 'hasta {max}',
  subject: 'Confirma tus alertas de propiedades de {agency}',
  hello: 'Hola, {name}:',
  asked: 'Alguien, esperamos que tú, pidió a {agency} que enviara correos a esta dirección sobre {what}.',
  openLink: 'Para activar estas alertas, abre este enlace y pulsa «Confirmar mis alertas»:',
  orOpenLink: 'O abre este enlace:',
  confirmButton: 'Confirmar mis alertas',
  linkWorksUntil:
    'El enlace funciona hasta el {date}. Si no pediste alertas, ignora este correo: no te enviaremos nada más y la solicitud se borrará en ese momento.',
  askTitle: 'Confirma tus alertas de propiedades',
  askBody: 'Cuando confirmes, {agency} te enviará correos sobre {what}.',
  youAgreedTo: 'Aceptaste:',
  notYou: '¿No eres tú? Cierra esta página: no se enviará nada y la solicitud se borrará cuando venza su enlace.',
  settingUpTitle: 'Gracias: tus alertas están confirmadas',
  settingUpBody: '{agency} está configurando tus alertas de {what}. Puedes cerrar esta página.',
  checkAgain: 'Volver a comprobar',
  onTitle: 'Tus alertas están activadas',
  onBody: '{agency} te enviará correos sobre {what}. Cada alerta incluye un enlace para dejar de recibirlas.',
  unsubscribedTitle: 'No te hemos suscrito',
  unsubscribedBody: 'Antes le pediste a {agency} que no te enviara correos, y lo respetamos: no te hemos vuelto a suscribir.',
  unsubscribedAsk: 'Si al final quieres recibir estas alertas, pide a {agency} que las active por ti.',
  stuckTitle: 'Tus alertas están confirmadas',
  stuckBody:
    'Tu confirmación quedó registrada, pero configurar tus alertas de {what} está tardando más de lo debido. Ya avisamos a {agency}, que lo resolverá.',
  goneTitle: 'Este enlace ha caducado',
  goneBody:
    'Este enlace de confirmación ha caducado o no se reconoce. Para recibir alertas, vuelve a guardar la búsqueda en el sitio web de {agency}: te enviaremos un nuevo enlace por correo electrónico.',
};
