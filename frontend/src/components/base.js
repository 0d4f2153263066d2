/**
 * The base of the bank's components: an `A2uiLitElement` whose API (name + Zod schema) is read
 * from the catalog JSON by the component's name, drawn in the light DOM like the basic components
 * (so the surface's fonts and colours reach it) and sized by the catalog's common `weight` prop.
 */

import { css } from 'lit';
import { A2uiLitElement } from '@a2ui/lit/v0_9';
import { componentApi } from '../catalog.js';

const apis = new Map();

export class BankElement extends A2uiLitElement {
  /** The component's name in the catalog, e.g. `DataCard`; set by each subclass. */
  static component = '';
  /** The custom element's tag name; set by each subclass. */
  static tag = '';

  constructor() {
    super();
    const name = this.constructor.component;
    if (!apis.has(name)) apis.set(name, componentApi(name));
    this.api = apis.get(name);
  }

  createRenderRoot() {
    return this;
  }

  willUpdate(changed) {
    super.willUpdate(changed);
    const weight = this.controller?.props?.weight;
    if (weight !== undefined) this.style.flex = String(weight);
    else this.style.removeProperty('flex');
  }
}

/** What the cards share: a bordered box in the surface's colours. */
export const cardStyles = css`
  :host {
    display: block;
  }
  .bank-card {
    box-sizing: border-box;
    border: 1px solid var(--bank-border, #d0d7de);
    border-radius: 8px;
    padding: 12px 16px;
    background: var(--bank-card-background, #fff);
  }
  .bank-label {
    font-size: 0.85em;
    color: var(--bank-muted, #57606a);
  }
  .bank-value {
    font-size: 1.5em;
    font-weight: 600;
  }
  .bank-caption {
    font-size: 0.85em;
    color: var(--bank-muted, #57606a);
  }
`;

/** A value as text: numbers and strings as they are, anything missing as nothing. */
export function shown(value) {
  return value === undefined || value === null ? '' : String(value);
}
