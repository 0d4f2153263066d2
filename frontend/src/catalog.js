/**
 * Our A2UI v0.9 catalog as the renderer needs it: one `Catalog` under our catalogId whose
 * component schemas come from `runtime/a2ui/catalog.json` (bundled at build time, never retyped).
 *
 * A surface uses exactly one catalog, so the basic components the catalog JSON copies (Column,
 * Text, Button...) are drawn by Google's basic implementations, and the bank's own components by
 * the Lit elements in `components/`. A name in the JSON with neither is a build-time mistake and
 * fails loudly when this module loads.
 */

import { Catalog } from '@a2ui/web_core/v0_9';
import { basicCatalog } from '@a2ui/lit/v0_9';
import catalogJson from '../../runtime/a2ui/catalog.json';

export const CATALOG_ID = catalogJson.catalogId;

const schemaOnly = Catalog.fromSchema(catalogJson);

/** True when a property's JSON schema is a `oneOf` with a DataBinding branch and no enum. */
function isBindable(property) {
  const branches = property.oneOf ?? property.anyOf;
  return (
    Array.isArray(branches) &&
    branches.some(b => typeof b.$ref === 'string' && b.$ref.endsWith('/DataBinding')) &&
    !branches.some(b => Array.isArray(b.enum))
  );
}

/**
 * The component API (`{name, schema}`) of `name`, its Zod schema read from the catalog JSON.
 *
 * `Catalog.fromSchema` turns a property like `value: oneOf [string, number, DataBinding]` into a
 * plain `any`, which the binder then passes through unresolved (`{path: ...}`). Describing it as a
 * dynamic value makes the binder resolve and follow the binding, as it does for `DynamicString`.
 */
export function componentApi(name) {
  const api = schemaOnly.components.get(name);
  if (!api) throw new Error(`catalog.json has no component ${name}`);
  const parts = catalogJson.components[name].allOf ?? [catalogJson.components[name]];
  const dynamic = {};
  for (const part of parts) {
    for (const [prop, schema] of Object.entries(part.properties ?? {})) {
      if (isBindable(schema) && prop in api.schema.shape) {
        const description = `REF:common_types.json#/$defs/DynamicValue|${schema.description ?? ''}`;
        dynamic[prop] = api.schema.shape[prop].describe(description);
      }
    }
  }
  return { name, schema: api.schema.extend(dynamic) };
}

/**
 * The renderer's catalog: `implementations` maps a bank component's name to its custom element's
 * tag name; every other name in the catalog JSON must be one of the basic catalog's.
 */
export function buildCatalog(implementations) {
  const components = Object.keys(catalogJson.components).map(name => {
    if (name in implementations) {
      return { ...componentApi(name), tagName: implementations[name] };
    }
    const basic = basicCatalog.components.get(name);
    if (!basic) throw new Error(`catalog.json names ${name}, which no element implements`);
    return basic;
  });
  return new Catalog(CATALOG_ID, components);
}
