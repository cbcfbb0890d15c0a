import type { TeamStrings } from '../../team/strings.ts';

/** Traditional Chinese words of <estate-team> (translated for home buyers from Hong Kong and Taiwan: polite 您, 地產代理公司 for the agency, 物業). */
export default {
  listLabel: '我們的團隊',
  loading: '正在載入團隊…',
  filling: '團隊資料即將顯示：正在載入地產代理公司的資料，此頁面會自動更新。',
  emptyTitle: '這裡暫時沒有可顯示的人員。',
  emptyHint: '請聯絡辦公室。',
  errorTitle: '無法載入團隊資料。',
  errorRetryLater: '請稍後再試。',
  retry: '重試',
  listingCount: { other: '{count} 個物業正在出售或出租' },
  call: '致電{name}',
} satisfies TeamStrings;
