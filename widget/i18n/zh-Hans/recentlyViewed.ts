import type { RecentlyViewedStrings } from '../../recently-viewed/strings.ts';

export default {
  bedrooms: { other: '{count} 间卧室' },
  bathrooms: { other: '{count} 间浴室' },
  carSpaces: { other: '{count} 个车位' },
  badgeUnderOffer: '已有买家出价',
  badgeSold: '已售出',
  badgeLeased: '已出租',
  priceFallback: '请联系中介',
  auction: '拍卖 {date}',
  keep: '收藏 {address}',
  heading: '最近浏览',
  clear: '清除',
  clearName: '清除您最近浏览的房源',
  cleared: '已从此设备上清除您最近浏览的房源。',
  gone: '已下架',
} satisfies RecentlyViewedStrings;
