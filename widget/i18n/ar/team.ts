import type { TeamStrings } from '../../team/strings.ts';

export default {
  listLabel: 'فريقنا',
  loading: 'جارٍ تحميل الفريق…',
  filling: 'بيانات الفريق في الطريق: يجري تحميل بيانات الوكالة. تتحدّث هذه الصفحة تلقائيًا.',
  emptyTitle: 'لا يوجد أحد لعرضه هنا بعد.',
  emptyHint: 'يُرجى التواصل مع المكتب.',
  errorTitle: 'تعذّر تحميل الفريق.',
  errorRetryLater: 'يُرجى المحاولة مرة أخرى بعد قليل.',
  retry: 'حاول مرة أخرى',
  listingCount: {
    zero: 'لا توجد منازل معروضة',
    one: 'منزل واحد معروض للبيع أو الإيجار',
    two: 'منزلان معروضان للبيع أو الإيجار',
    few: '{count} منازل معروضة للبيع أو الإيجار',
    many: '{count} منزلًا معروضًا للبيع أو الإيجار',
    other: '{count} منزل معروض للبيع أو الإيجار',
  },
  call: 'اتصل بـ {name}',
} satisfies TeamStrings;
