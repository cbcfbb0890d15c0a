import type { RecentlyViewedStrings } from '../../recently-viewed/strings.ts';

/** Korean words of <estate-recently-viewed> (translated for home buyers: 해요체, "최근 본 매물" as Korean property portals say, 협상 중, 거래 완료, 임대 완료). */
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
  heading: '최근 본 매물',
  clear: '지우기',
  clearName: '최근 본 매물 기록 지우기',
  cleared: '이 기기에서 최근 본 매물 기록을 지웠어요.',
  gone: '등록 종료',
} satisfies RecentlyViewedStrings;
