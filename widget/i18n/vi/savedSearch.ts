import type { SavedSearchStrings } from '../../saved-search/strings.ts';

/** Vietnamese words of <estate-saved-search> (translated for home buyers: polite "bạn", "khu vực" for a suburb). */
export default {
  heading: 'Nhận thông báo cho tìm kiếm này',
  submit: 'Nhận thông báo',
  consent: 'Tôi đồng ý để công ty môi giới gửi email cho tôi về các bất động sản mới phù hợp với tìm kiếm này và liên lạc với tôi về các bất động sản đó.',
  intro: 'Chúng tôi sẽ gửi cho bạn các bất động sản mới phù hợp với: {search}.',
  anyHome: 'mọi loại nhà',
  forSale: 'đang bán',
  forLease: 'cho thuê',
  inSuburb: 'tại {suburb}',
  inDrawnArea: 'tại {suburb} (các khu vực nằm trong vùng bạn vẽ)',
  minPrice: 'từ {price}',
  maxPrice: 'tối đa {price}',
  minBeds: 'từ {count} phòng ngủ',
  minBaths: 'từ {count} phòng tắm',
  minCars: 'từ {count} chỗ đậu xe',
  success: 'Xin cảm ơn! Tìm kiếm của bạn đã được lưu tại công ty môi giới và bạn sẽ được báo khi có bất động sản mới phù hợp.',
  successEmail:
    'Sắp xong: vui lòng kiểm tra hộp thư {email}, công ty môi giới đã gửi một email có đường dẫn để bắt đầu nhận thông báo. Bạn sẽ không nhận được gì cho đến khi bấm vào đường dẫn đó.',
  successAgent: 'Xin cảm ơn! Công ty môi giới sẽ xác nhận với bạn trước khi gửi thông báo.',
  notOffered:
    'Rất tiếc, trang này hiện chưa có dịch vụ thông báo nên thông tin của bạn chưa được lưu. Vui lòng liên hệ trực tiếp với công ty môi giới để biết về các bất động sản mới.',
  areaLoading: 'trong vùng bản đồ (đang tìm các khu vực…)',
  areaLast: '{first} hoặc {last}',
  areaMore: 'Vùng bản đồ còn bao gồm {count} khu vực khác: thông báo chỉ theo dõi {max} khu vực có nhiều nhà nhất. Hãy phóng to bản đồ để chọn ít khu vực hơn.',
  areaEmpty: 'Chưa có căn nhà nào trong vùng bản đồ cho biết thuộc khu vực nào. Hãy di chuyển hoặc mở rộng bản đồ, hoặc chọn một khu vực.',
  areaFailed: 'Hiện chưa tìm được các khu vực trong vùng bản đồ. Vui lòng gửi lại để thử lần nữa.',
  areaWait: 'Đang tìm các khu vực trong vùng bản đồ; vui lòng gửi lại sau giây lát.',
  surroundingLoading: 'tại {suburbs} và các khu vực lân cận (đang tìm…)',
  surroundingFailed: 'Hiện chưa tìm được các khu vực lân cận khu vực bạn chọn. Vui lòng gửi lại để thử lần nữa.',
  surroundingWait: 'Đang tìm các khu vực lân cận khu vực bạn chọn; vui lòng gửi lại sau giây lát.',
  surroundingMore: 'Thông báo theo dõi tối đa {max} khu vực: khu vực bạn chọn và các khu vực gần nhất xung quanh; {count} khu vực xa hơn không được bao gồm.',
  suggestionsLabel: 'Có phải bạn muốn tìm:',
} satisfies SavedSearchStrings;
