import type { AgentStrings } from '../../agent/strings.ts';

/** Korean words of <estate-agent> (translated for home buyers: 해요체, the words of 네이버 부동산 and 직방: 매물, 에이전트, 중개 사무소; a name followed by "님" so no particle has to agree with its last sound). */
export default {
  loading: '불러오는 중…',
  filling: '페이지를 준비하고 있어요. 중개 사무소 정보를 불러오는 중이며, 다 불러오면 자동으로 업데이트돼요.',
  notFound: '저희 팀에 없거나 더 이상 근무하지 않는 분이에요.',
  gone: '이 에이전트는 더 이상 저희 중개 사무소에서 근무하지 않아요.',
  goneHint: '저희 팀이 기꺼이 도와드릴게요.',
  noAgentId: '선택된 에이전트가 없어요.',
  errorTitle: '페이지를 불러오지 못했어요.',
  errorRetryLater: '잠시 후 다시 시도해 주세요.',
  retry: '다시 시도',
  meetTheTeam: '팀 소개 보기',
  call: '{name} 님에게 전화',
  email: '{name} 님에게 이메일',
  listingCount: { other: '진행 중인 매물 {count}건' },
  about: '{name} 님 소개',
  current: '진행 중인 매물',
  noCurrent: '현재 {name} 님이 진행 중인 매물이 없어요.',
  results: '거래 완료 · 임대 완료',
  contact: '{name} 님에게 연락하기',
  messageButton: '{name} 님에게 메시지',
  message: '{name} 님에게 메시지 보내기',
  appraisal: '{name} 님에게 가치 평가 요청하기',
} satisfies AgentStrings;
