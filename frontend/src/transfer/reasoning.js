/**
 * The design model writes JSON whose first key is `reasoning`; while it streams, show that text
 * as it grows rather than raw JSON. Anything else (the offline designer's plain reasoning, or an
 * answer shaped otherwise) is shown as it is.
 */

const OPENING = /^\s*\{\s*"reasoning"\s*:\s*"/;

export function readableReasoning(stream) {
  const opening = stream.match(OPENING);
  if (!opening) return stream;
  let text = '';
  for (let i = opening[0].length; i < stream.length; i += 1) {
    const char = stream[i];
    if (char === '"') return text;
    if (char !== '\\') {
      text += char;
      continue;
    }
    const escape = stream.slice(i, i + 6);
    if (escape.length < 2) break; // cut mid-escape: wait for more
    if (escape[1] === 'u') {
      if (escape.length < 6) break;
      text += String.fromCharCode(parseInt(escape.slice(2), 16));
      i += 5;
    } else {
      text += JSON.parse(`"${escape.slice(0, 2)}"`);
      i += 1;
    }
  }
  return text;
}
