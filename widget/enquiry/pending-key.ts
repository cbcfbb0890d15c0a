/**
 * Where a submission that has not reached the relay yet is kept in localStorage: one key per form
 * identity ('listing:42', 'agent:7', 'open-home:42:9', …), so a property's form and an agent's
 * form never share one; undefined when the form has nothing to send to. Apart from
 * pending-store.ts, so the form can look for a kept submission without the store's code (issue 33).
 */
export function pendingKey(target: string | undefined): string | undefined {
  return target && 'estate-enquiry:pending:' + target;
}
