import type { EnquiryStrings } from '../../enquiry/strings.ts';

/** Vietnamese words of <estate-enquiry> (translated for home buyers: polite "bạn", the words Vietnamese-Australian agencies use). */
export default {
  headingListing: 'Hỏi thông tin về bất động sản này',
  headingAgent: 'Gửi tin nhắn',
  labelName: 'Họ tên',
  labelEmail: 'Địa chỉ email',
  labelMobile: 'Số di động',
  labelMessage: 'Tin nhắn',
  labelOptional: '(không bắt buộc)',
  labelSubmit: 'Gửi yêu cầu',
  hintMobile: 'Số điện thoại Úc, New Zealand hoặc Anh',
  errorRequired: 'Vui lòng điền mục này.',
  errorEmail: 'Vui lòng nhập địa chỉ email, ví dụ name@example.com.',
  errorMobile: 'Vui lòng nhập số điện thoại Úc, New Zealand hoặc Anh, ví dụ 0412 345 678.',
  errorTooLong: 'Nội dung quá dài, vui lòng rút ngắn lại.',
  errorConsent: 'Vui lòng đánh dấu vào ô này để gửi yêu cầu của bạn.',
  errorRefused: 'Vui lòng kiểm tra lại mục này.',
  invalidMessage: 'Yêu cầu của bạn chưa được gửi: vui lòng sửa các mục được đánh dấu.',
  sendingMessage: 'Đang gửi yêu cầu của bạn…',
  successMessage: 'Xin cảm ơn! Yêu cầu của bạn đã được gửi và người môi giới sẽ sớm liên lạc với bạn.',
  errorMessage: 'Hiện chưa thể gửi yêu cầu của bạn. Yêu cầu đã được lưu trên thiết bị này và sẽ tự động gửi lại; bạn cũng có thể bấm nút để thử lại ngay.',
  rateLimitedMessage: 'Có quá nhiều yêu cầu được gửi từ kết nối mạng này. Yêu cầu của bạn đã được lưu và sẽ được gửi lại sau {seconds} giây.',
  refusedMessage: 'Rất tiếc, yêu cầu này không thể được tiếp nhận. Vui lòng liên hệ trực tiếp với công ty môi giới.',
} satisfies EnquiryStrings;
