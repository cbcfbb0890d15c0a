import type { EnquiryStrings } from '../../enquiry/strings.ts';

/** Hindi words of <estate-enquiry> (translated for home buyers: आप, polite "कृपया … करें" as Indian property portals write their forms, "पूछताछ" for an enquiry). */
export default {
  headingListing: 'इस प्रॉपर्टी के बारे में पूछताछ करें',
  headingAgent: 'मैसेज भेजें',
  labelName: 'पूरा नाम',
  labelEmail: 'ईमेल',
  labelMobile: 'मोबाइल नंबर',
  labelMessage: 'मैसेज',
  labelOptional: '(वैकल्पिक)',
  labelSubmit: 'पूछताछ भेजें',
  hintMobile: 'ऑस्ट्रेलिया, न्यूज़ीलैंड या यूके का नंबर',
  errorRequired: 'कृपया यह जानकारी भरें।',
  errorEmail: 'कृपया ईमेल पता डालें, जैसे name@example.com',
  errorMobile: 'कृपया ऑस्ट्रेलिया, न्यूज़ीलैंड या यूके का फ़ोन नंबर डालें, जैसे 0412 345 678',
  errorTooLong: 'यह बहुत लंबा है; कृपया इसे छोटा करें।',
  errorConsent: 'अपनी पूछताछ भेजने के लिए कृपया इस बॉक्स पर टिक करें।',
  errorRefused: 'कृपया इस जानकारी को दोबारा जाँचें।',
  invalidMessage: 'आपकी पूछताछ नहीं भेजी गई: कृपया जिन फ़ील्ड के नीचे संदेश दिख रहा है, उन्हें ठीक करें।',
  sendingMessage: 'आपकी पूछताछ भेजी जा रही है…',
  successMessage: 'धन्यवाद। आपकी पूछताछ भेज दी गई है और एजेंट जल्द ही आपसे संपर्क करेंगे।',
  errorMessage: 'आपकी पूछताछ अभी नहीं भेजी जा सकी। यह इस डिवाइस पर सुरक्षित है और अपने-आप दोबारा भेजी जाएगी; आप अभी कोशिश करने के लिए बटन भी दबा सकते हैं।',
  rateLimitedMessage: 'इस कनेक्शन से बहुत ज़्यादा पूछताछ भेजी गई हैं। आपकी पूछताछ सुरक्षित है और {seconds} सेकंड में दोबारा भेजी जाएगी।',
  refusedMessage: 'क्षमा करें, यह पूछताछ स्वीकार नहीं की जा सकी। कृपया सीधे एजेंसी से संपर्क करें।',
} satisfies EnquiryStrings;
