/**
 * Map: a place and its markers, drawn without fetching tiles (the page must work offline and
 * leak no location to a tile server): markers are placed around the centre in Web Mercator at
 * the given zoom, listed by label, and the centre links to OpenStreetMap for a real map.
 */

import { css, html, nothing, svg } from 'lit';
import { BankElement, cardStyles } from './base.js';

const SIZE = 240; // the drawing's width and height, in CSS pixels
const TILE = 256; // Web Mercator world width at zoom 0, in pixels

/** A point's Web Mercator pixel position at `zoom`. */
function project(latitude, longitude, zoom) {
  const scale = TILE * 2 ** zoom;
  const sin = Math.sin((latitude * Math.PI) / 180);
  return {
    x: ((longitude + 180) / 360) * scale,
    y: (0.5 - Math.log((1 + sin) / (1 - sin)) / (4 * Math.PI)) * scale,
  };
}

export class MapView extends BankElement {
  static component = 'Map';
  static tag = 'bank-map';
  static styles = [
    cardStyles,
    css`
      .bank-map svg { width: 100%; max-width: ${SIZE}px; display: block; background: #e8f0e6; border-radius: 6px; }
      .bank-map ul { margin: 8px 0 0; padding-left: 1.2em; }
    `,
  ];

  render() {
    const p = this.controller.props;
    const latitude = Number(p.latitude);
    const longitude = Number(p.longitude);
    if (!Number.isFinite(latitude) || !Number.isFinite(longitude)) return nothing;
    const zoom = p.zoom ?? 14;
    const centre = project(latitude, longitude, zoom);
    const markers = (Array.isArray(p.markers) ? p.markers : []).map(marker => {
      const at = project(marker.latitude, marker.longitude, zoom);
      return { ...marker, x: SIZE / 2 + at.x - centre.x, y: SIZE / 2 + at.y - centre.y };
    });
    const osm = `https://www.openstreetmap.org/?mlat=${latitude}&mlon=${longitude}#map=${zoom}/${latitude}/${longitude}`;
    return html`<div class="bank-card bank-map">
      <svg viewBox="0 0 ${SIZE} ${SIZE}" role="img" aria-label="Map centred on ${latitude}, ${longitude}">
        ${svg`<circle cx=${SIZE / 2} cy=${SIZE / 2} r="4" fill="#57606a" />`}
        ${markers.map(
          m => svg`<g><circle cx=${m.x} cy=${m.y} r="7" fill="#cf222e" /><title>${m.label ?? ''}</title></g>`,
        )}
      </svg>
      ${markers.some(m => m.label)
        ? html`<ul>${markers.filter(m => m.label).map(m => html`<li>${m.label}</li>`)}</ul>`
        : nothing}
      <a href=${osm} target="_blank" rel="noopener noreferrer">Open in OpenStreetMap</a>
    </div>`;
  }
}
