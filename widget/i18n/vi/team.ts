import type { TeamStrings } from '../../team/strings.ts';

/** Vietnamese words of <estate-team> (translated for home buyers: polite "bạn", the words Vietnamese-Australian agencies use). */
export default {
  listLabel: 'Đội ngũ của chúng tôi',
  loading: 'Đang tải đội ngũ…',
  filling: 'Thông tin đội ngũ sắp hiển thị: dữ liệu của công ty môi giới đang được tải. Trang sẽ tự cập nhật.',
  emptyTitle: 'Hiện chưa có ai để hiển thị ở đây.',
  emptyHint: 'Vui lòng liên hệ văn phòng.',
  errorTitle: 'Không thể tải thông tin đội ngũ.',
  errorRetryLater: 'Vui lòng thử lại sau giây lát.',
  retry: 'Thử lại',
  listingCount: { other: '{count} bất động sản đang bán hoặc cho thuê' },
  call: 'Gọi cho {name}',
} satisfies TeamStrings;
