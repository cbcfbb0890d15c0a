import type { AgentStrings } from '../../agent/strings.ts';

/** Traditional Chinese words of <estate-agent> (translated for home buyers from Hong Kong and Taiwan: polite 您, the words of 591 and 28Hse: 物業, 經紀, 地產代理公司, 估價). */
export default {
  loading: '載入中…',
  filling: '此頁面即將顯示：正在載入地產代理公司的資料，頁面會自動更新。',
  notFound: '此人不在我們的團隊中，或已離職。',
  gone: '這位經紀已離開本公司。',
  goneHint: '我們的團隊很樂意為您服務。',
  noAgentId: '未選擇經紀。',
  errorTitle: '無法載入此頁面。',
  errorRetryLater: '請稍後再試。',
  retry: '重試',
  meetTheTeam: '認識我們的團隊',
  call: '致電{name}',
  email: '以電子郵件聯絡{name}',
  listingCount: { other: '{count} 個物業正在出售或出租' },
  about: '關於{name}',
  current: '出售及出租中',
  noCurrent: '{name}目前沒有出售或出租中的物業。',
  results: '已售出及已租出',
  contact: '聯絡{name}',
  messageButton: '留言給{name}',
  message: '發送訊息給{name}',
  appraisal: '請{name}為您估價',
} satisfies AgentStrings;
