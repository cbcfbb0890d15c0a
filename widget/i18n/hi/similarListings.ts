import type { SimilarListingsStrings } from '../../similar-listings/strings.ts';

/** Hindi words of <estate-similar-listings> (translated for home buyers: the words 99acres and MagicBricks use: "मिलती-जुलती प्रॉपर्टी"). */
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
  heading: 'मिलती-जुलती प्रॉपर्टी',
} satisfies SimilarListingsStrings;
