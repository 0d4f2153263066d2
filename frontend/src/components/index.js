/** The bank's nine components, defined as custom elements: catalog name -> tag name. */

import { BenefitCard, ComparisonBadge, DataCard, ProductCard, StatCard } from './cards.js';
import { Gauge, ProgressBar } from './figures.js';
import { MapView } from './map.js';
import { Timeline } from './timeline.js';

const ELEMENTS = [
  DataCard,
  StatCard,
  BenefitCard,
  ProductCard,
  ComparisonBadge,
  Gauge,
  ProgressBar,
  Timeline,
  MapView,
];

export const BANK_COMPONENTS = Object.fromEntries(
  ELEMENTS.map(element => {
    if (!customElements.get(element.tag)) customElements.define(element.tag, element);
    return [element.component, element.tag];
  }),
);
