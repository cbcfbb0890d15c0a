import type { RecentlyViewedStrings } from '../../recently-viewed/strings.ts';

/** Vietnamese words of <estate-recently-viewed> (translated for home buyers: the words Vietnamese-Australian agencies use). */
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
  heading: 'Đã xem gần đây',
  clear: 'Xóa',
  clearName: 'Xóa danh sách bất động sản bạn đã xem gần đây',
  cleared: 'Danh sách bất động sản bạn đã xem gần đây đã được xóa khỏi thiết bị này.',
  gone: 'Không còn đăng bán',
} satisfies RecentlyViewedStrings;
