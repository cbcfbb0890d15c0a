import type { AgentStrings } from '../../agent/strings.ts';

/** Vietnamese words of <estate-agent> (translated for home buyers: polite "bạn", the words Vietnamese-Australian agencies use). */
export default {
  loading: 'Đang tải…',
  filling: 'Trang này sắp hiển thị: thông tin của công ty môi giới đang được tải. Trang sẽ tự cập nhật.',
  notFound: 'Người này không có trong đội ngũ của chúng tôi hoặc đã nghỉ việc.',
  gone: 'Người môi giới này không còn làm việc tại công ty.',
  goneHint: 'Đội ngũ của chúng tôi luôn sẵn lòng hỗ trợ bạn.',
  noAgentId: 'Chưa chọn người môi giới.',
  errorTitle: 'Không thể tải trang này.',
  errorRetryLater: 'Vui lòng thử lại sau giây lát.',
  retry: 'Thử lại',
  meetTheTeam: 'Gặp gỡ đội ngũ của chúng tôi',
  call: 'Gọi cho {name}',
  email: 'Gửi email cho {name}',
  listingCount: { other: '{count} bất động sản đang bán hoặc cho thuê' },
  about: 'Giới thiệu về {name}',
  current: 'Đang bán hoặc cho thuê',
  noCurrent: '{name} hiện không có bất động sản nào đang bán hoặc cho thuê.',
  results: 'Đã bán và đã cho thuê',
  contact: 'Liên hệ {name}',
  messageButton: 'Nhắn tin cho {name}',
  message: 'Gửi tin nhắn cho {name}',
  appraisal: 'Nhờ {name} định giá nhà của bạn',
} satisfies AgentStrings;
