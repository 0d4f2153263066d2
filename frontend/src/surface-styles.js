/**
 * The renderer's own stylesheet, adopted into each `<a2ui-surface>`'s shadow root (page CSS
 * cannot reach in). An A2UI `Row` does not wrap in `@a2ui/lit`, so on a phone its children ran
 * past the screen's edge: here a row wraps onto further lines (the row's own gap between them),
 * a child is never wider than the row and may shrink, and a long word breaks. Where the children
 * fit on one line, as on a wide screen, nothing changes.
 */

import { css } from 'lit';

const surfaceStyles = css`
  :host {
    overflow-wrap: break-word;
  }
  a2ui-basic-row {
    flex-wrap: wrap;
  }
  /* :where() adds no specificity, so a component's own sizing still wins. */
  :where(a2ui-basic-row) > * {
    min-width: 0;
    max-width: 100%;
    overflow-wrap: anywhere;
  }
`;

/**
 * Add the stylesheet to `surface`'s shadow root, after the sheets it already has. Lit makes that
 * root when the surface joins the document, so call this once it is appended to the page.
 */
export function adoptSurfaceStyles(surface) {
  const root = surface.shadowRoot;
  if (root && !root.adoptedStyleSheets.includes(surfaceStyles.styleSheet)) {
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, surfaceStyles.styleSheet];
  }
}
