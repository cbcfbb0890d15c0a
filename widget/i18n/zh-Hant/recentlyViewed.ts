import type { RecentlyViewedStrings } from '../../recently-viewed/strings.ts';

/** Traditional Chinese words of <estate-recently-viewed> (translated for home buyers from Hong Kong and Taiwan: the words of 591 and 28Hse: 物業, 洽談中, 已售出, 已租出, 收藏). */
export default {
  bedrooms: { other: '{count} 間臥室' },
  bathrooms: { other: '{count} 間浴室' },
  carSpaces: { other: '{count} 個車位' },
  badgeUnderOffer: '洽談中',
  badgeSold: '已售出',
  badgeLeased: '已租出',
  priceFallback: '請聯絡經紀',
  auction: '拍賣 {date}',
  keep: '收藏 {address}',
  heading: '最近瀏覽',
  clear: '清除',
  clearName: '清除您最近瀏覽的物業',
  cleared: '已從此裝置清除您最近瀏覽的物業。',
  gone: '已下架',
} satisfies RecentlyViewedStrings;
