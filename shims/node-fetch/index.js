// Node's own fetch and its classes, under node-fetch's exports (see package.json's description).
export default globalThis.fetch;
export const { Headers, Request, Response, FormData, Blob, File } = globalThis;
export const isRedirect = (code) => [301, 302, 303, 307, 308].includes(code);
