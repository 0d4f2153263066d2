/** The card-like components: DataCard, StatCard, BenefitCard, ProductCard, ComparisonBadge. */

import { css, html, nothing } from 'lit';
import { BankElement, cardStyles, shown } from './base.js';

export class DataCard extends BankElement {
  static component = 'DataCard';
  static tag = 'bank-data-card';
  static styles = [
    cardStyles,
    css`
      .tone-positive .bank-value { color: var(--bank-positive, #1a7f37); }
      .tone-negative .bank-value { color: var(--bank-negative, #cf222e); }
      .tone-warning .bank-value { color: var(--bank-warning, #9a6700); }
    `,
  ];

  render() {
    const p = this.controller.props;
    return html`<div class="bank-card bank-data-card tone-${p.tone ?? 'neutral'}">
      <div class="bank-label">${shown(p.title)}</div>
      <div class="bank-value">${shown(p.value)}</div>
      ${p.caption ? html`<div class="bank-caption">${p.caption}</div>` : nothing}
    </div>`;
  }
}

const TRENDS = { up: '▲', down: '▼', flat: '▶' };

export class StatCard extends BankElement {
  static component = 'StatCard';
  static tag = 'bank-stat-card';
  static styles = [cardStyles, css`.bank-trend { margin-left: 0.3em; font-size: 0.8em; }`];

  render() {
    const p = this.controller.props;
    return html`<div class="bank-card bank-stat-card">
      <div class="bank-label">${shown(p.label)}</div>
      <div class="bank-value">
        ${shown(p.value)}${p.unit ? html` <span class="bank-unit">${p.unit}</span>` : nothing}
        ${p.trend
          ? html`<span class="bank-trend" title=${p.trend}>${TRENDS[p.trend]}</span>`
          : nothing}
      </div>
    </div>`;
  }
}

export class BenefitCard extends BankElement {
  static component = 'BenefitCard';
  static tag = 'bank-benefit-card';
  static styles = [cardStyles, css`.bank-highlight { font-weight: 600; color: var(--bank-positive, #1a7f37); }`];

  render() {
    const p = this.controller.props;
    return html`<div class="bank-card bank-benefit-card">
      <div class="bank-title"><strong>${shown(p.title)}</strong></div>
      ${p.description ? html`<div class="bank-caption">${p.description}</div>` : nothing}
      ${p.highlight ? html`<div class="bank-highlight">${p.highlight}</div>` : nothing}
    </div>`;
  }
}

export class ProductCard extends BankElement {
  static component = 'ProductCard';
  static tag = 'bank-product-card';
  static styles = [
    cardStyles,
    css`
      .bank-product-card img { max-width: 100%; border-radius: 4px; }
      .bank-product-card ul { margin: 8px 0 0; padding-left: 1.2em; }
      .bank-product-card button { margin-top: 8px; }
    `,
  ];

  render() {
    const p = this.controller.props;
    const features = Array.isArray(p.features) ? p.features : [];
    return html`<div class="bank-card bank-product-card">
      ${p.imageUrl ? html`<img src=${p.imageUrl} alt="" />` : nothing}
      <div class="bank-title"><strong>${shown(p.title)}</strong></div>
      ${p.subtitle ? html`<div class="bank-caption">${p.subtitle}</div>` : nothing}
      ${p.price !== undefined ? html`<div class="bank-value">${shown(p.price)}</div>` : nothing}
      ${features.length ? html`<ul>${features.map(f => html`<li>${f}</li>`)}</ul>` : nothing}
      ${p.action
        ? html`<button type="button" @click=${() => p.action()}>Choose ${shown(p.title)}</button>`
        : nothing}
    </div>`;
  }
}

export class ComparisonBadge extends BankElement {
  static component = 'ComparisonBadge';
  static tag = 'bank-comparison-badge';
  static styles = css`
    :host { display: block; }
    .bank-badge {
      display: inline-block;
      border-radius: 999px;
      padding: 2px 10px;
      font-size: 0.85em;
      background: var(--bank-badge-background, #eaeef2);
    }
    .better { background: #dafbe1; color: #1a7f37; }
    .worse { background: #ffebe9; color: #cf222e; }
  `;

  render() {
    const p = this.controller.props;
    return html`<span class="bank-badge ${p.direction ?? 'equal'}">
      <strong>${shown(p.label)}</strong>${p.value !== undefined ? html` · ${shown(p.value)}` : nothing}
    </span>`;
  }
}
