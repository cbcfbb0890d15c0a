import type { EnquiryStrings } from '../../enquiry/strings.ts';

export default {
  headingListing: '咨询此房源',
  headingAgent: '发送留言',
  labelName: '姓名',
  labelEmail: '电子邮箱',
  labelMobile: '手机号码',
  labelMessage: '留言',
  labelOptional: '（选填）',
  labelSubmit: '发送咨询',
  hintMobile: '澳大利亚、新西兰或英国的号码',
  errorRequired: '请填写此项。',
  errorEmail: '请输入电子邮箱地址，例如 name@example.com。',
  errorMobile: '请输入澳大利亚、新西兰或英国的电话号码，例如 0412 345 678。',
  errorTooLong: '内容过长，请缩短。',
  errorConsent: '请勾选此项以发送您的咨询。',
  invalidMessage: '您的咨询尚未发送：请修改标有提示的栏目。',
  sendingMessage: '正在发送您的咨询…',
  successMessage: '谢谢！您的咨询已发送，中介会尽快与您联系。',
  errorMessage: '您的咨询暂时无法发送。它已保存在此设备上，并会自动重新发送；您也可以点击按钮立即重试。',
  rateLimitedMessage: '此网络连接发送的咨询过多。您的咨询已保存，将在 {seconds} 秒后重新发送。',
  refusedMessage: '抱歉，此咨询无法受理。请直接联系中介公司。',
} satisfies EnquiryStrings;
