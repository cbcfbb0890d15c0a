import type { AlertWords } from './en-AU.ts';

/** Vietnamese words of the saved search's confirmation e-mail and page (polite "bạn"; the widget's terms: "thông báo" for alerts, "khu vực" for a suburb, "đang bán / cho thuê", "đường dẫn" for a link). */
export const alertWordsVi: AlertWords = {
  homesForSale: 'nhà đang bán',
  homesForLease: 'nhà cho thuê',
  homesForSaleOrLease: 'nhà đang bán hoặc cho thuê',
  inSuburb: '{homes} tại {suburb}',
  inSuburbs: '{homes} tại {suburbs} hoặc {last}',
  listSeparator: ', ',
  minBeds: 'từ {count} phòng ngủ',
  minBaths: 'từ {count} phòng tắm',
  minCars: 'từ {count} chỗ đậu xe',
  priceBetween: 'từ {min} đến {max}',
  priceFrom: 'từ {min}',
  priceUpTo: 'tối đa {max}',
  subject: 'Xác nhận đăng ký nhận thông báo bất động sản từ {agency}',
  hello: 'Xin chào {name},',
  asked: 'Có người, chúng tôi mong đó là bạn, đã đề nghị {agency} gửi email đến địa chỉ này về {what}.',
  openLink: 'Để bắt đầu nhận các thông báo này, vui lòng mở đường dẫn sau và bấm “Xác nhận thông báo của tôi”:',
  orOpenLink: 'Hoặc mở đường dẫn này:',
  confirmButton: 'Xác nhận thông báo của tôi',
  linkWorksUntil:
    'Đường dẫn có hiệu lực đến {date}. Nếu bạn không yêu cầu nhận thông báo, vui lòng bỏ qua email này: bạn sẽ không nhận được gì thêm, và yêu cầu này sẽ bị xóa vào thời điểm đó.',
  askTitle: 'Xác nhận đăng ký nhận thông báo bất động sản',
  askBody: 'Sau khi bạn xác nhận, {agency} sẽ gửi email cho bạn về {what}.',
  youAgreedTo: 'Bạn đã đồng ý với nội dung:',
  notYou: 'Không phải bạn? Hãy đóng trang này: sẽ không có gì được gửi đi, và yêu cầu sẽ bị xóa khi đường dẫn hết hạn.',
  settingUpTitle: 'Xin cảm ơn: thông báo của bạn đã được xác nhận',
  settingUpBody: '{agency} đang thiết lập thông báo về {what} cho bạn. Bạn có thể đóng trang này.',
  checkAgain: 'Kiểm tra lại',
  onTitle: 'Thông báo của bạn đã được bật',
  onBody: '{agency} sẽ gửi email cho bạn về {what}. Mỗi thông báo đều có đường dẫn để ngừng nhận.',
  unsubscribedTitle: 'Chúng tôi chưa đăng ký nhận thông báo cho bạn',
  unsubscribedBody: 'Trước đây bạn đã yêu cầu {agency} không gửi email cho bạn, và chúng tôi tôn trọng điều đó: chúng tôi không đăng ký lại cho bạn.',
  unsubscribedAsk: 'Nếu bạn vẫn muốn nhận các thông báo này, vui lòng đề nghị {agency} bật thông báo cho bạn.',
  stuckTitle: 'Thông báo của bạn đã được xác nhận',
  stuckBody:
    'Xác nhận của bạn đã được ghi nhận, nhưng việc thiết lập thông báo về {what} đang mất nhiều thời gian hơn dự kiến. {agency} đã được báo và sẽ xử lý việc này.',
  goneTitle: 'Đường dẫn này đã hết hạn',
  goneBody:
    'Đường dẫn xác nhận này đã hết hạn hoặc không hợp lệ. Để nhận thông báo, vui lòng lưu lại tìm kiếm trên trang web của {agency}: một đường dẫn mới sẽ được gửi đến email của bạn.',
};
