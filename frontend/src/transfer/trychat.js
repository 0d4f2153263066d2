/**
 * "Try it": a small chat with the plugin just written, over the runtime's WebSocket, with its
 * screens drawn by the shared renderer. No session is kept: the wizard's chat starts afresh.
 */

import { mountSurfaces } from '../renderer.js';
import { mountTranscript } from '../chat/transcript.js';

export function socketUrl(agent) {
  const url = new URL('/ws', location.href);
  url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
  url.searchParams.set('agent', agent);
  return url;
}

export function mountTryChat({ screen, transcript, form, input }, agent) {
  screen.replaceChildren(); // an earlier import's chat
  transcript.replaceChildren();
  const lines = mountTranscript(transcript);
  const url = socketUrl(agent);
  url.searchParams.set('mode', 'text');
  const socket = new WebSocket(url);

  function send(type, payload) {
    if (socket.readyState !== WebSocket.OPEN) return false;
    socket.send(JSON.stringify({ type, payload }));
    return true;
  }

  const surfaces = mountSurfaces(screen, {
    onAction: action => send('client.ui.action', { actionId: action.name, data: action.context ?? {} }),
  });

  function agentLine(text) {
    const last = lines.last;
    if (!(last?.speaker === 'agent' && last.text === text)) lines.add('agent', text);
  }

  socket.addEventListener('message', event => {
    const frame = JSON.parse(event.data);
    const payload = frame.payload ?? {};
    if (frame.type === 'server.a2ui.patch') surfaces.process(payload);
    else if (frame.type === 'server.voice.say' || frame.type === 'server.transcript.final') {
      agentLine(payload.text);
    } else if (frame.type === 'server.error') lines.add('agent', `(error) ${payload.message}`);
  });

  form.onsubmit = event => {
    event.preventDefault();
    const text = input.value.trim();
    if (text && send('client.transcript.final', { text })) lines.add('user', text);
    input.value = '';
  };

  return { close: () => socket.close() };
}
