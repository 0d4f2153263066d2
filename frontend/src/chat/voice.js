/**
 * Voice, where the browser has the Web Speech API: speech recognition turns one utterance into
 * text to send, speech synthesis reads the agent's lines aloud. Both are optional.
 */

const Recognition = globalThis.SpeechRecognition ?? globalThis.webkitSpeechRecognition;

export const canListen = Boolean(Recognition);
export const canSpeak = 'speechSynthesis' in globalThis;

/** Listen for one utterance; `onText(text)` gets its final transcript. */
export function listenOnce(onText, onEnd) {
  const recognition = new Recognition();
  recognition.lang = document.documentElement.lang || 'en-GB';
  recognition.interimResults = false;
  recognition.addEventListener('result', event => {
    const text = event.results[0]?.[0]?.transcript?.trim();
    if (text) onText(text);
  });
  recognition.addEventListener('end', onEnd);
  recognition.start();
  return recognition;
}

export function speak(text) {
  if (!canSpeak) return;
  speechSynthesis.speak(new SpeechSynthesisUtterance(text));
}
