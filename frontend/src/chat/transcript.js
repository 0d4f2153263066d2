/**
 * The transcript pane: who said what, kept in `sessionStorage` per session id so a reload shows
 * the conversation the resumed screen belongs to (the server re-sends screens, not lines).
 */

export function mountTranscript(list) {
  let key = null;
  let lines = [];

  function draw(line) {
    const item = document.createElement('li');
    item.className = `line ${line.speaker}`;
    item.dataset.speaker = line.speaker;
    const who = document.createElement('span');
    who.className = 'speaker';
    who.textContent = line.speaker === 'user' ? 'You' : 'Agent';
    const text = document.createElement('span');
    text.className = 'text';
    text.textContent = line.text;
    item.append(who, text);
    list.append(item);
    item.scrollIntoView({ block: 'nearest' });
  }

  return {
    /** Show the lines stored for `sessionId` (once, when the server first names the session). */
    restore(sessionId) {
      const next = `chat:transcript:${sessionId}`;
      if (key === next) return;
      const stored = JSON.parse(sessionStorage.getItem(next) ?? '[]');
      key = next;
      lines = [...stored, ...lines];
      list.replaceChildren();
      lines.forEach(draw);
      sessionStorage.setItem(key, JSON.stringify(lines));
    },
    add(speaker, text) {
      const line = { speaker, text };
      lines.push(line);
      draw(line);
      if (key) sessionStorage.setItem(key, JSON.stringify(lines));
    },
    /** The last line, to avoid showing a spoken line and its transcript twice. */
    get last() {
      return lines.at(-1);
    },
  };
}
