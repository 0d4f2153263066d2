/**
 * The import API as the wizard calls it (see docs/wizard.md). Errors come back as
 * `{error: "one line", ...}`; `ApiError` carries that line, the status and the whole body.
 */

export class ApiError extends Error {
  constructor(status, body) {
    super(body.error ?? `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

async function call(method, path, body) {
  const init = { method, credentials: 'same-origin', headers: {} };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

const BASE = '/api/import-agent';

/** Fetch and inspect only: `{source, inspection, files, files_truncated}`. */
export const inspect = source => call('POST', `${BASE}/inspect`, source);

/** Start an import job (`wait: false`); its `job_id`. */
export const startImport = request => call('POST', BASE, { ...request, wait: false });

/** One screen through the runtime's validator: `{ok, issues: [{component_id, property, message}]}`. */
export const validateScreen = (pluginId, screen) =>
  call('POST', `${BASE}/validate-screen`, { plugin_id: pluginId, screen });

const FINISHED = new Set(['DONE', 'ERROR']);

/** Poll a job until it finishes, handing each status to `onStatus`; the last status. */
export async function follow(jobId, onStatus, intervalMs = 150) {
  for (;;) {
    const status = await call('GET', `${BASE}/status/${jobId}`);
    onStatus(status);
    if (FINISHED.has(status.state)) return status;
    await new Promise(resolve => setTimeout(resolve, intervalMs));
  }
}
