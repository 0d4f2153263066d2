/**
 * The chat page's WebSocket to the runtime (`/ws?agent=<id>[&sessionId=<id>]`). The session keeps
 * the runtime's default mode (voice): its spoken lines are the page's captions.
 *
 * It keeps the session id the server names in its frames, so a reconnect (and a reload, through
 * `sessionStorage` and the page URL) resumes the same LangGraph thread. The server closes with a
 * 4xxx code and a reason when it cannot serve the agent or the session: those are final; a
 * dropped connection is retried a few times.
 */

/** Close codes after which reconnecting cannot help (see runtime/serving/websocket/wire.py). */
const FINAL_CLOSE_CODES = new Set([4000, 4001, 4002, 1011]);
const RETRIES = 3;
const RETRY_DELAY_MS = 1000;

function storageKey(agent) {
  return `chat:${agent}:sessionId`;
}

/** The session to resume: the URL's `sessionId`, else the one this tab last used for `agent`. */
export function storedSession(agent, url = new URL(location.href)) {
  return url.searchParams.get('sessionId') || sessionStorage.getItem(storageKey(agent)) || null;
}

/** Remember `sessionId` for `agent` in this tab and in the page URL (so a reload resumes). */
export function rememberSession(agent, sessionId) {
  sessionStorage.setItem(storageKey(agent), sessionId);
  const url = new URL(location.href);
  if (url.searchParams.get('sessionId') !== sessionId) {
    url.searchParams.set('sessionId', sessionId);
    history.replaceState(null, '', url);
  }
}

/** Forget the session of `agent` (a new conversation starts on the next connect). */
export function forgetSession(agent) {
  sessionStorage.removeItem(storageKey(agent));
  const url = new URL(location.href);
  url.searchParams.delete('sessionId');
  history.replaceState(null, '', url);
}

/**
 * Connect to `agent`; `onFrame(frame)` gets each server frame, `onState(state, detail)` gets
 * `open`, `reconnecting` or `closed` (detail: `{code, reason, final}`).
 */
export function connect(agent, { onFrame, onState }) {
  let socket;
  let sessionId = storedSession(agent);
  let retries = 0;
  let closing = false;

  function open() {
    const url = new URL('/ws', location.href);
    url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
    url.searchParams.set('agent', agent);
    if (sessionId) url.searchParams.set('sessionId', sessionId);
    socket = new WebSocket(url);
    socket.addEventListener('open', () => {
      retries = 0;
      onState('open');
    });
    socket.addEventListener('message', event => {
      const frame = JSON.parse(event.data);
      if (frame.sessionId && frame.sessionId !== sessionId) {
        sessionId = frame.sessionId;
        rememberSession(agent, sessionId);
      }
      onFrame(frame);
    });
    socket.addEventListener('close', event => {
      const final = closing || FINAL_CLOSE_CODES.has(event.code) || retries >= RETRIES;
      onState(final ? 'closed' : 'reconnecting', { code: event.code, reason: event.reason, final });
      if (!final) {
        retries += 1;
        setTimeout(open, RETRY_DELAY_MS * retries);
      }
    });
  }

  open();
  return {
    get sessionId() {
      return sessionId;
    },
    /** Send one client message `{type, payload}`; false when the socket is not open. */
    send(type, payload) {
      if (socket.readyState !== WebSocket.OPEN) return false;
      socket.send(JSON.stringify({ type, sessionId, payload }));
      return true;
    },
    close() {
      closing = true;
      socket.close();
    },
  };
}
