import type { TeamStrings } from '../../team/strings.ts';

export default {
  listLabel: '我们的团队',
  loading: '正在加载团队…',
  filling: '团队信息正在路上：中介公司的资料正在加载中，本页面会自动更新。',
  emptyTitle: '这里暂时没有可显示的人员。',
  emptyHint: '请联系办公室。',
  errorTitle: '无法加载团队信息。',
  errorRetryLater: '请稍后再试。',
  retry: '重试',
  listingCount: { other: '{count} 套房源正在出售或出租' },
  call: '致电{name}',
} satisfies TeamStrings;
