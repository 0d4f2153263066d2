/** The figures: Gauge (a half dial) and ProgressBar. Values outside the range are clamped. */

import { css, html, nothing, svg } from 'lit';
import { BankElement, cardStyles, shown } from './base.js';

/** Where `value` sits between `min` and `max`, from 0 to 1 (0 when the range is empty). */
function fraction(value, min, max) {
  const number = Number(value);
  if (!Number.isFinite(number) || max <= min) return 0;
  return Math.min(1, Math.max(0, (number - min) / (max - min)));
}

export class Gauge extends BankElement {
  static component = 'Gauge';
  static tag = 'bank-gauge';
  static styles = [
    cardStyles,
    css`
      .bank-gauge svg { width: 140px; height: 80px; display: block; }
      .bank-gauge .track { stroke: var(--bank-border, #d0d7de); }
      .bank-gauge .fill { stroke: var(--a2ui-color-primary, #0969da); }
    `,
  ];

  render() {
    const p = this.controller.props;
    const min = p.min ?? 0;
    const max = p.max ?? 100;
    const share = fraction(p.value, min, max);
    const angle = Math.PI * (1 - share);
    const x = 70 + 60 * Math.cos(angle);
    const y = 70 - 60 * Math.sin(angle);
    return html`<div
      class="bank-card bank-gauge"
      role="meter"
      aria-valuemin=${min}
      aria-valuemax=${max}
      aria-valuenow=${Number(p.value) || 0}
      aria-label=${shown(p.label)}
    >
      ${p.label ? html`<div class="bank-label">${p.label}</div>` : nothing}
      <svg viewBox="0 0 140 80" aria-hidden="true">
        ${svg`<path class="track" d="M10 70 A60 60 0 0 1 130 70" fill="none" stroke-width="10" />`}
        ${share > 0
          ? svg`<path class="fill" d="M10 70 A60 60 0 0 1 ${x} ${y}" fill="none" stroke-width="10" />`
          : nothing}
      </svg>
      <div class="bank-value">${shown(p.value)}${p.unit ? shown(p.unit) : ''}</div>
    </div>`;
  }
}

export class ProgressBar extends BankElement {
  static component = 'ProgressBar';
  static tag = 'bank-progress-bar';
  static styles = [
    cardStyles,
    css`
      .bank-bar { height: 8px; border-radius: 4px; background: var(--bank-border, #d0d7de); }
      .bank-bar > div { height: 100%; border-radius: 4px; background: var(--a2ui-color-primary, #0969da); }
    `,
  ];

  render() {
    const p = this.controller.props;
    const max = p.max ?? 100;
    const share = fraction(p.value, 0, max);
    return html`<div class="bank-progress">
      ${p.label ? html`<div class="bank-label">${p.label}</div>` : nothing}
      <div
        class="bank-bar"
        role="progressbar"
        aria-valuemin="0"
        aria-valuemax=${max}
        aria-valuenow=${Number(p.value) || 0}
        aria-label=${shown(p.label)}
      >
        <div style="width: ${(share * 100).toFixed(1)}%"></div>
      </div>
    </div>`;
  }
}
