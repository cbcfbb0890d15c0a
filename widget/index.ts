/**
 * Every `estate-*` element, registered: `import 'estate-embed/widget'` from a bundler. (Agency
 * sites load widget.js instead, widget/loader.ts, which fetches each element's code when its tag
 * first appears.)
 */
import './enquiry/define.ts';
import './listings/define.ts';
import './listing/define.ts';
import './lightbox/define.ts';
import './appraisal/define.ts';
import './open-home-registration/define.ts';
import './inspection-request/define.ts';
import './shortlist/define.ts';
import './saved-search/define.ts';
import './map/define.ts';
import './similar-listings/define.ts';
import './recently-viewed/define.ts';
import './team/define.ts';
import './agent/define.ts';
