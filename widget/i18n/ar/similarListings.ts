import type { SimilarListingsStrings } from '../../similar-listings/strings.ts';

export default {
  bedrooms: {
    zero: '{count} غرفة نوم',
    one: 'غرفة نوم واحدة',
    two: 'غرفتا نوم',
    few: '{count} غرف نوم',
    many: '{count} غرفة نوم',
    other: '{count} غرفة نوم',
  },
  bathrooms: {
    zero: '{count} حمّام',
    one: 'حمّام واحد',
    two: 'حمّامان',
    few: '{count} حمّامات',
    many: '{count} حمّامًا',
    other: '{count} حمّام',
  },
  carSpaces: {
    zero: '{count} موقف سيارة',
    one: 'موقف سيارة واحد',
    two: 'موقفا سيارة',
    few: '{count} مواقف سيارات',
    many: '{count} موقفًا للسيارات',
    other: '{count} موقف سيارة',
  },
  badgeUnderOffer: 'قيد التفاوض',
  badgeSold: 'تم البيع',
  badgeLeased: 'تم التأجير',
  priceFallback: 'تواصل مع الوكيل',
  auction: 'مزاد {date}',
  keep: 'احفظ {address}',
  heading: 'منازل مشابهة',
} satisfies SimilarListingsStrings;
