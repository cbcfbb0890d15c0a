import type { SimilarListingsStrings } from '../../similar-listings/strings.ts';

/** Vietnamese words of <estate-similar-listings> (translated for home buyers: the words Vietnamese-Australian agencies use). */
export default {
  bedrooms: { other: '{count} phòng ngủ' },
  bathrooms: { other: '{count} phòng tắm' },
  carSpaces: { other: '{count} chỗ đậu xe' },
  badgeUnderOffer: 'Đã có người trả giá',
  badgeSold: 'Đã bán',
  badgeLeased: 'Đã cho thuê',
  priceFallback: 'Liên hệ môi giới',
  auction: 'Đấu giá {date}',
  keep: 'Lưu {address}',
  heading: 'Bất động sản tương tự',
} satisfies SimilarListingsStrings;
