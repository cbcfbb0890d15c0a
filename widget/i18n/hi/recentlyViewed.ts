import type { RecentlyViewedStrings } from '../../recently-viewed/strings.ts';

/** Hindi words of <estate-recently-viewed> (translated for home buyers: आप, the words 99acres and MagicBricks use: "प्रॉपर्टी", "हाल ही में देखी गई"). */
export default {
  bedrooms: { one: '{count} बेडरूम', other: '{count} बेडरूम' },
  bathrooms: { one: '{count} बाथरूम', other: '{count} बाथरूम' },
  carSpaces: { one: '{count} कार पार्किंग', other: '{count} कार पार्किंग' },
  badgeUnderOffer: 'बातचीत जारी',
  badgeSold: 'बिक गई',
  badgeLeased: 'किराए पर दी गई',
  priceFallback: 'कीमत के लिए संपर्क करें',
  auction: 'नीलामी {date}',
  keep: '{address} शॉर्टलिस्ट करें',
  heading: 'हाल ही में देखी गई प्रॉपर्टी',
  clear: 'साफ़ करें',
  clearName: 'हाल ही में देखी गई प्रॉपर्टी की सूची साफ़ करें',
  cleared: 'हाल ही में देखी गई आपकी प्रॉपर्टी इस डिवाइस से हटा दी गईं।',
  gone: 'अब लिस्टेड नहीं',
} satisfies RecentlyViewedStrings;
