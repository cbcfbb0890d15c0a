import type { TeamStrings } from '../../team/strings.ts';

/** Hindi words of <estate-team> (translated for home buyers: आप; a name before को, so nothing has to agree with its gender). */
export default {
  listLabel: 'हमारी टीम',
  loading: 'टीम लोड हो रही है…',
  filling: 'टीम की जानकारी तैयार हो रही है: एजेंसी की जानकारी लोड की जा रही है। यह पेज अपने-आप अपडेट हो जाएगा।',
  emptyTitle: 'यहाँ दिखाने के लिए अभी कोई नहीं है।',
  emptyHint: 'कृपया ऑफ़िस से संपर्क करें।',
  errorTitle: 'टीम लोड नहीं हो सकी।',
  errorRetryLater: 'कृपया थोड़ी देर में दोबारा कोशिश करें।',
  retry: 'दोबारा कोशिश करें',
  listingCount: { one: '{count} प्रॉपर्टी उपलब्ध', other: '{count} प्रॉपर्टी उपलब्ध' },
  call: '{name} को कॉल करें',
} satisfies TeamStrings;
