/**
 * The screens step: one tab per screen, a live preview drawn by the shared renderer, and the
 * "Screen JSON" editor. Every edit is parsed, then checked by the runtime's validator (through
 * the API); a valid screen is redrawn at once, an invalid one keeps its last good drawing and
 * lists its problems by component and property. `onValidity(allValid)` follows every check.
 */

import { CATALOG_ID, mountSurfaces } from '../renderer.js';
import { validateScreen } from './api.js';

const VERSION = 'v0.9';
const SURFACE = 'preview';
const CHECK_DELAY_MS = 120;

/** What the preview binds to: the plugin's initial data model with sample texts. */
function sampleData(initial) {
  return {
    ...initial,
    question: initial.question || 'What can you do for me?',
    answer: initial.answer || 'The agent’s answer appears here.',
    error: initial.error || 'Something went wrong.',
  };
}

function messages(screen, data) {
  return [
    { version: VERSION, createSurface: { surfaceId: SURFACE, catalogId: CATALOG_ID } },
    { version: VERSION, updateComponents: { surfaceId: SURFACE, components: screen.components } },
    { version: VERSION, updateDataModel: { surfaceId: SURFACE, path: '/', value: data } },
  ];
}

function issueText(issue) {
  const where = [];
  if (issue.component_id != null) where.push(`component '${issue.component_id}'`);
  if (issue.property != null) where.push(`property '${issue.property}'`);
  return where.length ? `${where.join(' ')}: ${issue.message}` : issue.message;
}

export function mountScreenEditor(elements, { pluginId, design, onValidity }) {
  const { tabs, surface, editor, issues } = elements;
  const names = ['welcome', 'collecting', 'result', 'error'];
  const data = sampleData(design.initial_domain_state ?? {});
  surface.replaceChildren(); // an earlier import's preview
  const surfaces = mountSurfaces(surface);
  const screens = Object.fromEntries(
    names.map(name => [
      name,
      { text: JSON.stringify(design[name], null, 2), parsed: design[name], problems: [], seq: 0 },
    ]),
  );
  let current = names[0];
  let timer = null;

  function draw() {
    const screen = screens[current];
    surfaces.clear();
    try {
      surfaces.process(messages(screen.parsed, data));
    } catch (error) {
      screen.problems = [`preview: the renderer refused the screen: ${error.message}`];
    }
  }

  function showProblems() {
    const screen = screens[current];
    issues.replaceChildren(
      ...screen.problems.map(text => {
        const item = document.createElement('li');
        item.textContent = text;
        return item;
      }),
    );
    for (const tab of tabs.children) {
      const invalid = screens[tab.dataset.screen].problems.length > 0;
      tab.classList.toggle('invalid', invalid);
      tab.setAttribute('aria-invalid', String(invalid));
    }
    editor.setAttribute('aria-invalid', String(screen.problems.length > 0));
    onValidity(names.every(name => screens[name].problems.length === 0));
  }

  async function check(name) {
    const screen = screens[name];
    const seq = ++screen.seq;
    let parsed;
    try {
      parsed = JSON.parse(screen.text);
    } catch (error) {
      screen.problems = [`Screen JSON: ${error.message}`];
      showProblems();
      return;
    }
    let answer;
    try {
      answer = await validateScreen(pluginId, parsed);
    } catch (error) {
      answer = { ok: false, issues: [{ message: error.message }] };
    }
    if (seq !== screen.seq) return; // a later edit is being checked
    screen.problems = answer.issues.map(issueText);
    if (answer.ok) {
      screen.parsed = parsed;
      if (name === current) draw();
    }
    showProblems();
  }

  function select(name) {
    current = name;
    for (const tab of tabs.children) {
      tab.setAttribute('aria-selected', String(tab.dataset.screen === name));
    }
    editor.value = screens[name].text;
    draw();
    showProblems();
  }

  tabs.replaceChildren(
    ...names.map(name => {
      const tab = document.createElement('button');
      tab.type = 'button';
      tab.role = 'tab';
      tab.dataset.screen = name;
      tab.textContent = name;
      tab.addEventListener('click', () => select(name));
      return tab;
    }),
  );
  editor.oninput = () => {
    screens[current].text = editor.value;
    screens[current].seq += 1; // drop checks of older text
    onValidity(false); // until this text is checked
    clearTimeout(timer);
    const name = current;
    timer = setTimeout(() => check(name), CHECK_DELAY_MS);
  };
  select(current);

  return {
    /** The design with the edited screens, for the write. */
    edited() {
      return { ...design, ...Object.fromEntries(names.map(name => [name, screens[name].parsed])) };
    },
  };
}
