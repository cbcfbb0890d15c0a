/**
 * Registers `<estate-team>`. Its cards link to each person's page (`<estate-agent>`, or the relay's
 * own). `import 'estate-embed/widget/team'` from a bundler.
 */
import { EstateTeam } from './team.ts';

export * from './team.ts';

if (!customElements.get('estate-team')) customElements.define('estate-team', EstateTeam);
