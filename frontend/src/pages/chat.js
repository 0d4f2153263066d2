/**
 * `/chat?agent=<id>`: a browser client for any plugin. Text (or speech) in; the plugin's A2UI
 * screens and its spoken lines out; buttons send their actions back.
 *
 * The page's state is on the root element for people and tests alike: `data-state` is
 * `connecting`, `ready`, `thinking`, `reconnecting` or `closed`; `data-session-id` names the
 * session; `data-error-code` the last `server.error`'s code.
 */

import { mountSurfaces } from '../renderer.js';
import { connect, forgetSession } from '../chat/connection.js';
import { mountTranscript } from '../chat/transcript.js';
import { canListen, canSpeak, listenOnce, speak } from '../chat/voice.js';

const root = document.getElementById('chat');
const form = document.getElementById('composer');
const input = document.getElementById('message');
const errorBox = document.getElementById('error');
const micButton = document.getElementById('listen');
const speakToggle = document.getElementById('speak');
const agent = new URL(location.href).searchParams.get('agent');

const transcript = mountTranscript(document.getElementById('transcript'));
let connection = null;

function setState(state) {
  root.dataset.state = state;
}

function showError(message, code = 'client') {
  errorBox.textContent = message;
  errorBox.hidden = false;
  root.dataset.errorCode = code;
}

function clearError() {
  errorBox.hidden = true;
  errorBox.textContent = '';
  delete root.dataset.errorCode;
}

const surfaces = mountSurfaces(document.getElementById('screen'), {
  onAction(action) {
    clearError();
    connection.send('client.ui.action', { actionId: action.name, data: action.context ?? {} });
  },
});

/** A line the agent said: shown once, spoken when the user asked for speech. */
function agentLine(text, spoken) {
  const last = transcript.last;
  if (!(last?.speaker === 'agent' && last.text === text)) transcript.add('agent', text);
  if (spoken && speakToggle.checked) speak(text);
}

const HANDLERS = {
  'server.a2ui.patch'(payload) {
    try {
      surfaces.process(payload);
    } catch (error) {
      console.error('A2UI message refused:', error, payload);
      showError(`The screen could not be drawn: ${error.message}`, 'render_error');
    }
  },
  'server.voice.say': payload => agentLine(payload.text, true),
  'server.transcript.final': payload => agentLine(payload.text, false),
  'server.agent.thinking': payload => setState(payload.thinking ? 'thinking' : 'ready'),
  'server.error': payload => showError(payload.message, payload.code ?? 'error'),
};

function onFrame(frame) {
  if (frame.sessionId) {
    root.dataset.sessionId = frame.sessionId;
    transcript.restore(frame.sessionId);
  }
  HANDLERS[frame.type]?.(frame.payload ?? {});
}

function onState(state, detail) {
  if (state === 'open') {
    if (root.dataset.state === 'connecting' || root.dataset.state === 'reconnecting') {
      setState('ready');
    }
    return;
  }
  setState(state);
  if (state === 'reconnecting') {
    showError('The connection dropped; reconnecting…', 'reconnecting');
  } else if (detail.code !== 1000) {
    showError(detail.reason || `The connection closed (code ${detail.code}).`, `close_${detail.code}`);
  }
}

function send(text) {
  if (!text) return;
  clearError();
  if (connection.send('client.transcript.final', { text })) transcript.add('user', text);
  else showError('Not connected.', 'not_connected');
}

form.addEventListener('submit', event => {
  event.preventDefault();
  send(input.value.trim());
  input.value = '';
});

document.getElementById('restart').addEventListener('click', () => {
  forgetSession(agent);
  location.reload();
});

if (canListen) {
  micButton.hidden = false;
  micButton.addEventListener('click', () => {
    micButton.disabled = true;
    listenOnce(send, () => (micButton.disabled = false));
  });
}
if (canSpeak) {
  speakToggle.parentElement.hidden = false;
  speakToggle.addEventListener('change', () => {
    const mode = speakToggle.checked ? 'voice' : 'text';
    connection.send('client.mode.update', { mode, device: 'web' });
  });
}

if (!agent) {
  setState('closed');
  showError('No agent: open /chat?agent=<id>.', 'no_agent');
} else {
  document.title = `Chat: ${agent}`;
  document.getElementById('agent').textContent = agent;
  setState('connecting');
  connection = connect(agent, { mode: 'text', onFrame, onState });
}
