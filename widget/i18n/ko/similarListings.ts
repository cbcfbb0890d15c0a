import type { SimilarListingsStrings } from '../../similar-listings/strings.ts';

/** Korean words of <estate-similar-listings> (translated for home buyers: the words of 네이버 부동산 and 직방: 매물, 협상 중, 거래 완료, 임대 완료, 경매). */
export default {
  bedrooms: { other: '침실 {count}개' },
  bathrooms: { other: '욕실 {count}개' },
  carSpaces: { other: '주차 {count}대' },
  badgeUnderOffer: '협상 중',
  badgeSold: '거래 완료',
  badgeLeased: '임대 완료',
  priceFallback: '가격 문의',
  auction: '경매 {date}',
  keep: '관심 매물로 저장: {address}',
  heading: '비슷한 매물',
} satisfies SimilarListingsStrings;
