import type { ShortlistStrings } from '../../shortlist/strings.ts';

/** Hindi words of <estate-shortlist> (translated for home buyers: आप, "शॉर्टलिस्ट" for the kept homes, as 99acres and MagicBricks call them, "पूछताछ" for an enquiry). */
export default {
  count: { one: 'आपकी शॉर्टलिस्ट में {count} प्रॉपर्टी', other: 'आपकी शॉर्टलिस्ट में {count} प्रॉपर्टी' },
  emptyTitle: 'आपकी शॉर्टलिस्ट खाली है।',
  emptyHint: 'किसी प्रॉपर्टी को यहाँ रखने के लिए उस पर दिल का निशान दबाएँ। आपकी शॉर्टलिस्ट इसी डिवाइस पर रहती है।',
  listLabel: 'शॉर्टलिस्ट की गई प्रॉपर्टी',
  priceFallback: 'कीमत के लिए संपर्क करें',
  checking: 'जाँच हो रही है…',
  statusUnderOffer: 'बातचीत जारी',
  statusSold: 'बिक गई',
  statusLeased: 'किराए पर दी गई',
  statusGone: 'अब वेबसाइट पर नहीं है',
  statusUnknown: 'अभी जाँच नहीं हो सकी',
  remove: 'हटाएँ',
  removeName: '{address} को शॉर्टलिस्ट से हटाएँ',
  removed: '{address} को शॉर्टलिस्ट से हटा दिया गया।',
  enquireHeading: 'इन प्रॉपर्टी के बारे में पूछताछ करें',
  enquireIntro: 'जो प्रॉपर्टी अभी भी बिक्री या किराए के लिए उपलब्ध हैं, उनमें से हर एक के एजेंट को एक पूछताछ भेजी जाएगी।',
  enquireNone: 'आपकी शॉर्टलिस्ट की कोई भी प्रॉपर्टी अब बिक्री या किराए के लिए उपलब्ध नहीं है, इसलिए पूछताछ के लिए कोई एजेंट नहीं है।',
  defaultMessage: 'मुझे इस प्रॉपर्टी में दिलचस्पी है। कृपया मुझे और जानकारी भेजें।',
  submit: { one: '{count} पूछताछ भेजें', other: '{count} पूछताछ भेजें' },
  sending: 'भेजा जा रहा है…',
  sent: 'पूछताछ भेज दी गई',
  waiting: 'अभी नहीं भेजी गई: यह इस डिवाइस पर सुरक्षित है और अपने-आप दोबारा भेजी जाएगी।',
  waitingFor: 'अभी नहीं भेजी गई: {seconds} सेकंड में अपने-आप दोबारा भेजी जाएगी।',
  refused: 'स्वीकार नहीं की गई: {reason}',
  summaryAllSent: {
    one: 'आपकी पूछताछ भेज दी गई है। एजेंट आपसे संपर्क करेंगे।',
    other: 'आपकी {count} पूछताछ भेज दी गई हैं। एजेंट आपसे संपर्क करेंगे।',
  },
  summaryPartial: '{total} में से {sent} पूछताछ भेजी गईं। बाकी के लिए हर प्रॉपर्टी का पेज देखें।',
} satisfies ShortlistStrings;
