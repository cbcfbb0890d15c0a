import type { EnquiryStrings } from '../../enquiry/strings.ts';

/** Korean words of <estate-enquiry> (translated for home buyers: 해요체, "문의" for an enquiry, "에이전트" and "중개 사무소" as Korean property portals say). */
export default {
  headingListing: '이 매물 문의하기',
  headingAgent: '메시지 보내기',
  labelName: '이름',
  labelEmail: '이메일',
  labelMobile: '휴대폰 번호',
  labelMessage: '메시지',
  labelOptional: '(선택)',
  labelSubmit: '문의 보내기',
  hintMobile: '호주, 뉴질랜드 또는 영국 번호',
  errorRequired: '이 항목을 입력해 주세요.',
  errorEmail: 'name@example.com 같은 이메일 주소를 입력해 주세요.',
  errorMobile: '0412 345 678 같은 호주, 뉴질랜드 또는 영국 전화번호를 입력해 주세요.',
  errorTooLong: '내용이 너무 길어요. 조금 줄여 주세요.',
  errorConsent: '문의를 보내려면 이 항목에 체크해 주세요.',
  errorRefused: '이 항목을 다시 확인해 주세요.',
  invalidMessage: '문의가 전송되지 않았어요. 안내 문구가 표시된 항목을 고쳐 주세요.',
  sendingMessage: '문의를 보내는 중…',
  successMessage: '감사해요. 문의가 전송되었어요. 에이전트가 곧 연락드릴 거예요.',
  errorMessage: '아직 문의를 보내지 못했어요. 문의 내용은 이 기기에 저장되어 있고 자동으로 다시 전송돼요. 버튼을 눌러 지금 다시 시도할 수도 있어요.',
  rateLimitedMessage: '이 네트워크에서 너무 많은 문의가 전송되었어요. 작성하신 문의는 저장되어 있으며 {seconds}초 후에 다시 전송돼요.',
  refusedMessage: '죄송해요. 이 문의는 접수할 수 없어요. 중개 사무소에 직접 연락해 주세요.',
} satisfies EnquiryStrings;
