import type { TeamStrings } from '../../team/strings.ts';

/** Korean words of <estate-team> (translated for home buyers: 해요체, "진행 중인 매물" for homes on the market; a name followed by "님" so no particle has to agree with its last sound). */
export default {
  listLabel: '저희 팀',
  loading: '팀 정보 불러오는 중…',
  filling: '팀 정보를 준비하고 있어요. 중개 사무소 정보를 불러오는 중이며, 이 페이지는 자동으로 업데이트돼요.',
  emptyTitle: '아직 소개할 팀원이 없어요.',
  emptyHint: '사무소로 연락해 주세요.',
  errorTitle: '팀 정보를 불러오지 못했어요.',
  errorRetryLater: '잠시 후 다시 시도해 주세요.',
  retry: '다시 시도',
  listingCount: { other: '진행 중인 매물 {count}건' },
  call: '{name} 님에게 전화',
} satisfies TeamStrings;
