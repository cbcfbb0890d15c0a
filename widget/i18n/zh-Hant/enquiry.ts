import type { EnquiryStrings } from '../../enquiry/strings.ts';

/** Traditional Chinese words of <estate-enquiry> (translated for home buyers from Hong Kong and Taiwan: polite 您, short form labels as 591 and 28Hse write them; 查詢 for an enquiry). */
export default {
  headingListing: '查詢此物業',
  headingAgent: '發送訊息',
  labelName: '姓名',
  labelEmail: '電子郵件',
  labelMobile: '手機號碼',
  labelMessage: '訊息',
  labelOptional: '（選填）',
  labelSubmit: '發送查詢',
  hintMobile: '澳洲、紐西蘭或英國的號碼',
  errorRequired: '請填寫此欄。',
  errorEmail: '請輸入電子郵件地址，例如 name@example.com。',
  errorMobile: '請輸入澳洲、紐西蘭或英國的電話號碼，例如 0412 345 678。',
  errorTooLong: '內容過長，請刪減。',
  errorConsent: '請勾選此項以發送您的查詢。',
  errorRefused: '請檢查此欄。',
  invalidMessage: '您的查詢尚未發送：請修正有提示的欄位。',
  sendingMessage: '正在發送您的查詢…',
  successMessage: '謝謝！您的查詢已發送，經紀會盡快與您聯絡。',
  errorMessage: '您的查詢暫時未能發送。查詢已儲存在此裝置上，稍後會自動重新發送；您也可以按下按鈕立即重試。',
  rateLimitedMessage: '此連線發送的查詢過多。您的查詢已儲存，將於 {seconds} 秒後重新發送。',
  refusedMessage: '抱歉，此查詢無法受理。請直接聯絡地產代理公司。',
} satisfies EnquiryStrings;
