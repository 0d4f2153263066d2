/**
 * `/transfer`: the import wizard. Its state machine is on the root element as `data-step`:
 *
 *   IDLE → FETCHING → PARSED → DESIGNING → PREVIEW → WRITING → VALIDATING → DONE | ERROR
 *
 * FETCHING inspects the repository (nothing is designed or written); DESIGNING runs a dry-run
 * import job, streaming the model's output; PREVIEW shows the screens, the files and the
 * dependencies, with the screens editable; WRITING runs the real import with the edited design;
 * VALIDATING shows the checks and a chat with the written plugin, or, when the checks failed,
 * their diagnosis (what kind of failure, why, the fix) and *Start again*. Each element with
 * `data-steps="A B"` is shown in those steps only.
 */

import { ApiError, follow, inspect, startImport } from '../transfer/api.js';
import { readableReasoning } from '../transfer/reasoning.js';
import { mountScreenEditor } from '../transfer/screens.js';
import { mountTryChat, socketUrl } from '../transfer/trychat.js';

const $ = id => document.getElementById(id);
const root = $('transfer');

const wizard = {
  source: null, // {url, ref, plugin_id, force}
  inspection: null,
  design: null, // the dry run's Design
  preview: null, // the dry run's files
  dependencies: null,
  editor: null,
  chat: null,
  screensValid: false,
};

function setStep(step) {
  root.dataset.step = step;
  $('fetch').disabled = !['IDLE', 'PARSED', 'ERROR'].includes(step);
  for (const element of root.querySelectorAll('[data-steps]')) {
    element.hidden = !element.dataset.steps.split(' ').includes(step);
  }
  const order = [...root.querySelectorAll('.transfer-steps li')].map(li => li.dataset.for);
  for (const item of root.querySelectorAll('.transfer-steps li')) {
    const reached = order.indexOf(item.dataset.for) <= order.indexOf(step);
    item.classList.toggle('reached', reached);
    item.toggleAttribute('aria-current', item.dataset.for === step);
  }
}

function fail(error) {
  const box = $('error');
  box.textContent = error instanceof ApiError ? `${error.message} (HTTP ${error.status})` : String(error.message ?? error);
  box.hidden = false;
  setStep('ERROR');
}

function clearError() {
  $('error').hidden = true;
  $('error').textContent = '';
}

function item(text, className) {
  const li = document.createElement('li');
  li.textContent = text;
  if (className) li.className = className;
  return li;
}

// --- FETCHING → PARSED -----------------------------------------------------------------------

function showInspection({ source, inspection, files, files_truncated }) {
  $('source-info').textContent =
    source.url + (source.commit ? ` @ ${source.commit.slice(0, 12)}` : '') + (source.dirty ? ' (uncommitted changes)' : '');
  $('file-tree').replaceChildren(
    ...files.map(path => {
      const li = item(path);
      li.style.paddingLeft = `${(path.split('/').length - 1) * 1.2}em`;
      return li;
    }),
    ...(files_truncated ? [item('… more files not shown', 'muted')] : []),
  );
  const graphs = $('graph');
  graphs.replaceChildren(
    ...inspection.graphs.map(graph => {
      const option = document.createElement('option');
      option.value = graph.graph_id;
      option.textContent = `${graph.graph_id} (${graph.export_kind})`;
      return option;
    }),
  );
  graphs.onchange = () => showGraph(inspection.graphs.find(g => g.graph_id === graphs.value));
  showGraph(inspection.graphs[0]);
  $('warnings').replaceChildren(
    ...inspection.warnings.map(w => item(`${w.file}${w.line ? `:${w.line}` : ''}: ${w.message}`)),
  );
}

function showGraph(graph) {
  $('strategy').value = graph.strategy;
  $('strategy-reason').textContent = graph.strategy_reason;
  const state = graph.state;
  $('state-name').textContent = state ? `${state.name} (${state.style})` : 'not known statically';
  $('state-fields').tBodies[0].replaceChildren(
    ...(state?.fields ?? []).map(field => {
      const row = document.createElement('tr');
      for (const text of [field.name, field.type, field.reducer ?? '']) {
        const cell = document.createElement('td');
        cell.textContent = text;
        row.append(cell);
      }
      return row;
    }),
  );
  $('nodes').replaceChildren(
    ...(graph.nodes ?? []).map(node =>
      item(`${node.name}: ${node.target_name ?? node.target}` + (node.returns ? ` → ${node.returns.join(', ')}` : '')),
    ),
  );
}

$('source').addEventListener('submit', async event => {
  event.preventDefault();
  clearError();
  wizard.source = {
    url: $('url').value.trim(),
    ref: $('ref').value.trim() || null,
    plugin_id: $('plugin-id').value.trim(),
    force: $('force').checked,
  };
  setStep('FETCHING');
  try {
    const found = await inspect({ url: wizard.source.url, ref: wizard.source.ref });
    wizard.inspection = found.inspection;
    showInspection(found);
    setStep('PARSED');
  } catch (error) {
    fail(error);
  }
});

// --- DESIGNING → PREVIEW ---------------------------------------------------------------------

function importRequest(extra) {
  return {
    ...wizard.source,
    graph_id: $('graph').value,
    strategy: $('strategy').value,
    design: $('designer').value,
    ...extra,
  };
}

function showProgress(status) {
  $('progress').replaceChildren(
    ...status.steps.map(step => item(`${step.name}  ${step.seconds.toFixed(2)} s  ${step.summary}`)),
  );
}

$('design').addEventListener('click', async () => {
  clearError();
  setStep('DESIGNING');
  $('reasoning').textContent = '';
  showDiagnosis(null, { failed: false });
  try {
    const { job_id: jobId } = await startImport(importRequest({ dry_run: true }));
    const status = await follow(jobId, status => {
      $('reasoning').textContent = readableReasoning(status.stream);
      showProgress(status);
    });
    // A dry run that failed only for want of a requirement is still worth a preview: the
    // approval below installs it for the write's validation.
    const needsApproval = status.state === 'ERROR' && status.report?.missing && status.files;
    if (status.state === 'ERROR' && !needsApproval && status.diagnosis) return showFailedChecks(status);
    if (status.state === 'ERROR' && !needsApproval) throw new ApiError(status.error_status, status);
    $('reasoning').textContent = status.design.reasoning;
    wizard.design = status.design;
    wizard.preview = status.files;
    wizard.dependencies = status.dependencies;
    $('preview-note').textContent = needsApproval ? status.error : '';
    $('preview-note').hidden = !needsApproval;
    showPreview();
    setStep('PREVIEW');
  } catch (error) {
    fail(error);
  }
});

function showFiles(files) {
  const names = Object.keys(files).filter(name => !name.startsWith('src/'));
  const tabs = $('file-tabs');
  function select(name) {
    for (const tab of tabs.children) tab.setAttribute('aria-selected', String(tab.textContent === name));
    $('file-view').textContent = files[name] ?? '(binary file)';
  }
  tabs.replaceChildren(
    ...names.map(name => {
      const tab = document.createElement('button');
      tab.type = 'button';
      tab.role = 'tab';
      tab.textContent = name;
      tab.addEventListener('click', () => select(name));
      return tab;
    }),
  );
  select(names.includes('plugin.py') ? 'plugin.py' : names[0]);
}

function showDependencies(report) {
  const missing = report.requirements.filter(r => !r.satisfied);
  $('deps').replaceChildren(
    ...report.requirements.map(r =>
      item(`${r.spec} (${r.origin}): ${r.satisfied ? `installed ${r.installed}` : 'would be installed'}`),
    ),
    ...report.invalid.map(line => item(`ignored ${line}`)),
  );
  if (!report.requirements.length) $('deps').append(item('No requirements declared.'));
  $('approve-label').hidden = missing.length === 0;
  $('approve-deps').checked = false;
}

function updateWriteButton() {
  const needsApproval = !$('approve-label').hidden && !$('approve-deps').checked;
  $('write').disabled = !wizard.screensValid || needsApproval;
  $('write-note').textContent = !wizard.screensValid
    ? 'Fix the screens marked invalid to write the plugin.'
    : needsApproval
      ? 'Approve the missing requirements to write the plugin.'
      : '';
}

function showPreview() {
  showFiles(wizard.preview);
  showDependencies(wizard.dependencies);
  wizard.screensValid = true;
  wizard.editor = mountScreenEditor(
    { tabs: $('screen-tabs'), surface: $('surface'), editor: $('screen-json'), issues: $('screen-issues') },
    {
      pluginId: wizard.source.plugin_id,
      design: wizard.design,
      onValidity: valid => {
        wizard.screensValid = valid;
        updateWriteButton();
      },
    },
  );
  updateWriteButton();
}

$('approve-deps').addEventListener('change', updateWriteButton);

// --- WRITING → VALIDATING → DONE -------------------------------------------------------------

function showChecks(status) {
  const checks = status.report?.checks ?? [];
  $('checks').replaceChildren(
    ...(checks.length ? [] : [item('Checking…')]),
    ...checks.map(check => {
      const li = item(`${check.name === 'turns' ? 'smoke test' : `${check.name} check`}: ${check.ok ? 'passed' : 'FAILED'} (${check.summary})`);
      li.dataset.ok = String(check.ok);
      return li;
    }),
  );
}

/** The diagnosis of a failed validation (or a warning of a passed one), as the status has it. */
function showDiagnosis(diagnosis, { failed }) {
  const box = $('diagnosis');
  box.hidden = !diagnosis;
  $('retry').hidden = !failed;
  if (!diagnosis) return;
  box.dataset.kind = diagnosis.kind;
  box.dataset.severity = diagnosis.severity;
  const kind = diagnosis.kind.replaceAll('_', ' ');
  const where = diagnosis.location ? ` (${diagnosis.location})` : '';
  $('diagnosis-headline').textContent =
    `${diagnosis.severity === 'warning' ? 'Warning' : 'Failed'}, ${kind}: ${diagnosis.summary}${where}`;
  $('diagnosis-explanation').textContent = diagnosis.explanation;
  $('diagnosis-fix').textContent = `Fix: ${diagnosis.fix}`;
}

/** A job whose checks failed (or whose agent cannot run here): the checks, why, the fix. */
function showFailedChecks(status) {
  setStep('VALIDATING');
  if (status.report) showChecks(status);
  else $('checks').replaceChildren();
  showDiagnosis(status.diagnosis, { failed: true });
  $('try').hidden = true;
}

$('write').addEventListener('click', async () => {
  clearError();
  $('write').disabled = true;
  setStep('WRITING');
  $('checks').replaceChildren(item('Writing…'));
  showDiagnosis(null, { failed: false });
  try {
    const request = importRequest({ edited_design: wizard.editor.edited(), approve_deps: $('approve-deps').checked });
    const { job_id: jobId } = await startImport(request);
    const status = await follow(jobId, status => {
      if (status.state === 'VALIDATING' && root.dataset.step === 'WRITING') {
        setStep('VALIDATING');
        $('checks').replaceChildren(item('Checking…'));
      }
    });
    if (status.state === 'ERROR' && status.diagnosis) return showFailedChecks(status);
    if (status.state === 'ERROR') throw new ApiError(status.error_status, status);
    setStep('VALIDATING');
    showChecks(status);
    showDiagnosis(status.diagnosis, { failed: false });
    showDone(status);
    if (status.served) {
      wizard.chat = mountTryChat(
        { screen: $('try-screen'), transcript: $('try-transcript'), form: $('try-form'), input: $('try-message') },
        wizard.source.plugin_id,
      );
    } else {
      $('try').hidden = true;
    }
  } catch (error) {
    fail(error);
  }
});

function showDone(status) {
  const agent = wizard.source.plugin_id;
  $('chat-link').href = `/chat?agent=${encodeURIComponent(agent)}`;
  $('ws-url').textContent = socketUrl(agent).href;
  $('served').textContent = status.served
    ? `${agent} is written to runtime/plugins/${agent}/ and served now.`
    : status.serve_hint;
}

$('finish').addEventListener('click', () => setStep('DONE'));

for (const id of ['again', 'restart', 'retry']) {
  $(id).addEventListener('click', () => {
    wizard.chat?.close();
    clearError();
    setStep('IDLE');
  });
}

setStep('IDLE');
