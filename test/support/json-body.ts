/** A response's text and its JSON (undefined when empty or not JSON: a test then looks at the text). */
export async function readJsonBody(response: Response): Promise<{ text: string; body: any }> {
  const text = await response.text();
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { text, body };
}
