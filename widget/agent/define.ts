/**
 * Registers `<estate-agent>` and what it renders (`<estate-listings>` for the agent's homes). Its
 * message form and appraisal request are fetched once an agent is shown. `import
 * 'estate-embed/widget/agent'` from a bundler.
 */
import { defineDependencies } from '../shared/define.ts';
import { EstateAgent } from './agent.ts';

export * from './agent.ts';

defineDependencies(EstateAgent);
if (!customElements.get('estate-agent')) customElements.define('estate-agent', EstateAgent);
