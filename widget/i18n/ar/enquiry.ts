import type { EnquiryStrings } from '../../enquiry/strings.ts';

export default {
  headingListing: 'استفسر عن هذا العقار',
  headingAgent: 'أرسل رسالة',
  labelName: 'الاسم الكامل',
  labelEmail: 'البريد الإلكتروني',
  labelMobile: 'رقم الجوال',
  labelMessage: 'الرسالة',
  labelOptional: '(اختياري)',
  labelSubmit: 'أرسل الاستفسار',
  hintMobile: 'رقم أسترالي أو نيوزيلندي أو بريطاني',
  errorRequired: 'يُرجى ملء هذا الحقل.',
  errorEmail: 'يُرجى إدخال عنوان بريد إلكتروني مثل name@example.com.',
  errorMobile: 'يُرجى إدخال رقم هاتف أسترالي أو نيوزيلندي أو بريطاني، مثل 0412 345 678.',
  errorTooLong: 'النص طويل جدًا؛ يُرجى اختصاره.',
  errorConsent: 'يُرجى تحديد هذا المربع لإرسال استفسارك.',
  invalidMessage: 'لم يُرسَل استفسارك: يُرجى تصحيح الحقول المشار إليها برسالة.',
  sendingMessage: 'جارٍ إرسال استفسارك…',
  successMessage: 'شكرًا لك. تم إرسال استفسارك وسيتواصل معك الوكيل.',
  errorMessage: 'تعذّر إرسال استفسارك حتى الآن. إنه محفوظ على هذا الجهاز وسيُعاد إرساله تلقائيًا؛ ويمكنك أيضًا الضغط على الزر للمحاولة الآن.',
  rateLimitedMessage: 'أُرسل عدد كبير جدًا من الاستفسارات من هذا الاتصال. استفسارك محفوظ وسيُعاد إرساله بعد {seconds} ثانية.',
  refusedMessage: 'عذرًا، تعذّر قبول هذا الاستفسار. يُرجى التواصل مع الوكالة مباشرة.',
} satisfies EnquiryStrings;
