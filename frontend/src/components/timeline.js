/** Timeline: steps in time order, each done, current or upcoming. */

import { css, html, nothing } from 'lit';
import { BankElement } from './base.js';

const MARKS = { done: '✓', current: '●', upcoming: '○' };

export class Timeline extends BankElement {
  static component = 'Timeline';
  static tag = 'bank-timeline';
  static styles = css`
    :host { display: block; }
    .bank-timeline { list-style: none; margin: 0; padding: 0; }
    .bank-timeline li { display: flex; gap: 10px; padding: 6px 0; }
    .bank-timeline .mark { width: 1.2em; text-align: center; }
    .bank-timeline .current { font-weight: 600; }
    .bank-timeline .upcoming { color: var(--bank-muted, #57606a); }
    .bank-timeline .detail { font-size: 0.85em; color: var(--bank-muted, #57606a); }
  `;

  render() {
    const items = this.controller.props.items;
    if (!Array.isArray(items)) return nothing;
    return html`<ol class="bank-timeline">
      ${items.map(item => {
        const status = item?.status ?? 'upcoming';
        return html`<li class=${status}>
          <span class="mark" aria-label=${status}>${MARKS[status] ?? MARKS.upcoming}</span>
          <div>
            <div>${item?.title ?? ''}</div>
            ${item?.date ? html`<div class="detail">${item.date}</div>` : nothing}
            ${item?.description ? html`<div class="detail">${item.description}</div>` : nothing}
          </div>
        </li>`;
      })}
    </ol>`;
  }
}
