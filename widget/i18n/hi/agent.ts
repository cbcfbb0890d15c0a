import type { AgentStrings } from '../../agent/strings.ts';

/** Hindi words of <estate-agent> (translated for home buyers: आप, everyday Hindi as 99acres and MagicBricks write it, "प्रॉपर्टी", "एजेंट", "एजेंसी"; a name before को or से, so nothing has to agree with its gender). */
export default {
  loading: 'लोड हो रहा है…',
  filling: 'यह पेज तैयार हो रहा है: एजेंसी की जानकारी लोड की जा रही है। यह अपने-आप अपडेट हो जाएगा।',
  notFound: 'यह व्यक्ति हमारी टीम में नहीं है, या अब नहीं है।',
  gone: 'यह एजेंट अब हमारी एजेंसी में नहीं है।',
  goneHint: 'हमारी टीम आपकी मदद करके खुश होगी।',
  noAgentId: 'कोई एजेंट नहीं चुना गया।',
  errorTitle: 'यह पेज लोड नहीं हो सका।',
  errorRetryLater: 'कृपया थोड़ी देर में दोबारा कोशिश करें।',
  retry: 'दोबारा कोशिश करें',
  meetTheTeam: 'हमारी टीम से मिलें',
  call: '{name} को कॉल करें',
  email: '{name} को ईमेल करें',
  listingCount: { one: '{count} प्रॉपर्टी उपलब्ध', other: '{count} प्रॉपर्टी उपलब्ध' },
  about: '{name} के बारे में',
  current: 'उपलब्ध प्रॉपर्टी',
  noCurrent: '{name} के पास अभी कोई प्रॉपर्टी उपलब्ध नहीं है।',
  results: 'बिकी और किराए पर दी गई प्रॉपर्टी',
  contact: '{name} से संपर्क करें',
  messageButton: '{name} को मैसेज करें',
  message: '{name} को मैसेज भेजें',
  appraisal: '{name} से मूल्यांकन करवाएँ',
} satisfies AgentStrings;
