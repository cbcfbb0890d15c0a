import type { SavedSearchStrings } from '../../saved-search/strings.ts';

/** Korean words of <estate-saved-search> (translated for home buyers: 해요체, "새 매물 알림" for alerts, "지역" for a suburb, 매매 / 임대; the search's parts as a comma list of short terms). */
export default {
  heading: '이 조건으로 새 매물 알림 받기',
  submit: '알림 받기',
  consent: '이 검색 조건에 맞는 새 매물을 중개 사무소가 이메일로 보내고, 이에 관해 저에게 연락하는 것에 동의해요.',
  intro: '다음 조건에 맞는 새 매물을 보내 드려요: {search}.',
  anyHome: '모든 매물',
  forSale: '매매',
  forLease: '임대',
  inSuburb: '{suburb} 지역',
  inDrawnArea: '{suburb} 지역(그린 영역에 포함된 지역)',
  minPrice: '{price} 이상',
  maxPrice: '{price} 이하',
  minBeds: '침실 {count}개 이상',
  minBaths: '욕실 {count}개 이상',
  minCars: '주차 {count}대 이상',
  success: '감사해요. 검색 조건이 중개 사무소에 저장되었어요. 조건에 맞는 새 매물이 나오면 알려 드릴게요.',
  successEmail:
    '거의 다 됐어요. {email} 받은편지함에서 중개 사무소가 보낸 이메일을 열고, 알림을 시작하는 링크를 눌러 주세요. 링크를 누르기 전에는 아무것도 보내지 않아요.',
  successAgent: '감사해요. 알림을 보내기 전에 중개 사무소에서 먼저 확인 연락을 드릴 거예요.',
  notOffered:
    '죄송해요. 지금은 이 사이트에서 알림 서비스를 제공하지 않아 입력하신 정보를 저장하지 않았어요. 새 매물 소식을 받으시려면 중개 사무소에 직접 연락해 주세요.',
  areaLoading: '지도 영역 안(포함된 지역을 찾는 중…)',
  areaLast: '{first} 또는 {last}',
  areaMore: '지도 영역에 지역이 {count}곳 더 있어요. 알림은 매물이 가장 많은 {max}곳을 기준으로 보내 드려요. 지역을 줄이려면 지도를 확대해 주세요.',
  areaEmpty: '지도 영역 안에 아직 어느 지역인지 표시된 매물이 없어요. 지도를 이동하거나 넓혀 보시거나, 지역을 선택해 주세요.',
  areaFailed: '지금은 지도 영역의 지역을 찾지 못했어요. 다시 보내서 한 번 더 시도해 주세요.',
  areaWait: '지도 영역의 지역을 찾는 중이에요. 잠시 후 다시 보내 주세요.',
  surroundingLoading: '{suburbs} 및 주변 지역(찾는 중…)',
  surroundingFailed: '지금은 선택하신 지역의 주변 지역을 찾지 못했어요. 다시 보내서 한 번 더 시도해 주세요.',
  surroundingWait: '선택하신 지역의 주변 지역을 찾는 중이에요. 잠시 후 다시 보내 주세요.',
  surroundingMore: '알림은 선택하신 지역과 가장 가까운 주변 지역을 합쳐 최대 {max}곳까지 받을 수 있어요. 더 멀리 있는 {count}곳은 제외돼요.',
  suggestionsLabel: '혹시 이 지역을 찾으셨나요?',
} satisfies SavedSearchStrings;
