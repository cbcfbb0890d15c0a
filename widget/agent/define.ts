/**
 * Registers `<estate-agent>` and what it renders (`<estate-listings>` for the agent's homes, the
 * message form `<estate-enquiry>`). Its appraisal request is fetched when a visitor first opens it.
 * `import 'estate-embed/widget/agent'` from a bundler.
 */
import { defineDependencies } from '../shared/define.ts';
import { EstateAgent } from './agent.ts';

export * from './agent.ts';

defineDependencies(EstateAgent);
if (!customElements.get('estate-agent')) customElements.define('estate-agent', EstateAgent);
