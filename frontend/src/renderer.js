/**
 * The renderer module every page shares: A2UI v0.9 messages in, `<a2ui-surface>` elements out,
 * drawn by Google's renderer (`@a2ui/lit`) with our catalog.
 *
 *   const surfaces = mountSurfaces(container, { onAction: action => send(action) });
 *   surfaces.process(message);        // one message or a list of them
 *
 * `onAction` receives a button's action as A2UI defines it:
 * `{name, surfaceId, sourceComponentId, timestamp, context}`.
 */

import { ContextProvider } from '@lit/context';
import { Context, MessageProcessor } from '@a2ui/web_core/v0_9';
import '@a2ui/lit/v0_9';
import { renderMarkdown } from '@a2ui/markdown-it';
import { buildCatalog, CATALOG_ID } from './catalog.js';
import { BANK_COMPONENTS } from './components/index.js';
import { adoptSurfaceStyles } from './surface-styles.js';

export { CATALOG_ID };
export const catalog = buildCatalog(BANK_COMPONENTS);

/**
 * Draw the surfaces that `process`ed messages create inside `container`, one `<a2ui-surface>`
 * each (with `data-surface-id`), in the order they were created.
 */
export function mountSurfaces(container, { onAction = () => {} } = {}) {
  // Body Text is markdown; the basic Text element asks its ancestors for a renderer.
  new ContextProvider(container, { context: Context.markdown, initialValue: renderMarkdown });
  const processor = new MessageProcessor([catalog], action => onAction(action));
  const elements = new Map();

  processor.onSurfaceCreated(surface => {
    const element = document.createElement('a2ui-surface');
    element.dataset.surfaceId = surface.id;
    element.surface = surface;
    elements.set(surface.id, element);
    container.append(element);
    adoptSurfaceStyles(element);
  });
  processor.onSurfaceDeleted(surfaceId => {
    elements.get(surfaceId)?.remove();
    elements.delete(surfaceId);
  });

  return {
    /**
     * Apply A2UI messages in order. A `createSurface` for a surface already shown replaces it
     * (a client that reconnects is sent one again). Throws on a message the renderer refuses.
     */
    process(messages) {
      for (const message of Array.isArray(messages) ? messages : [messages]) {
        const created = message.createSurface?.surfaceId;
        if (created !== undefined && elements.has(created)) {
          processor.processMessages([{ version: message.version, deleteSurface: { surfaceId: created } }]);
        }
        processor.processMessages([message]);
      }
    },
    /** The ids of the surfaces shown, in order. */
    get surfaceIds() {
      return [...elements.keys()];
    },
    /** Remove every surface. */
    clear() {
      for (const surfaceId of [...elements.keys()]) {
        processor.processMessages([{ version: 'v0.9', deleteSurface: { surfaceId } }]);
      }
    },
  };
}
