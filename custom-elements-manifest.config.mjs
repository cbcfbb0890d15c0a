// `cem analyze` settings (also read by scripts/docs-elements.ts): the public elements only.
// The manifest is committed as custom-elements.json; `npm run docs` regenerates it and a test
// fails when the committed one is stale.

/**
 * Three things the analyzer gets wrong for this code base, put right after it has linked modules:
 * - `customElements.define(ENQUIRY_TAG, …)` with a string constant: the tag name becomes the
 *   constant's name; we substitute the string it holds.
 * - Lit's internal reactive state (`static properties = { x: { state: true } }`) is recorded as a
 *   public attribute; Lit never observes an attribute for it, so it is dropped from the docs.
 * - `new CustomEvent(name, …)` inside a helper is recorded as an event literally called `name`;
 *   our events all carry the `estate-` prefix (house rule), so other names are dropped.
 * And one choice: only modules that declare or register an element are kept. Helper modules (formatting,
 * phone numbers, icons) are not public API, and listing them would make every internal refactor
 * a "stale manifest".
 */
function estateConventionsPlugin() {
  /** module path → (constant name → string value) */
  const constants = new Map();
  /** class name → names of its `state: true` properties */
  const stateFields = new Map();
  return {
    name: 'estate-conventions',
    collectPhase({ ts, node }) {
      const file = node.getSourceFile?.()?.fileName;
      if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && ts.isStringLiteral(node.initializer)) {
        if (!constants.has(file)) constants.set(file, new Map());
        constants.get(file).set(node.name.text, node.initializer.text);
      }
      if (ts.isClassDeclaration(node) && node.name) {
        for (const member of node.members) {
          const isStatic = member.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.StaticKeyword);
          if (!isStatic || member.name?.getText() !== 'properties') continue;
          const object = member.initializer;
          if (!object || !ts.isObjectLiteralExpression(object)) continue;
          for (const property of object.properties) {
            if (!ts.isPropertyAssignment(property) || !ts.isObjectLiteralExpression(property.initializer)) continue;
            const isState = property.initializer.properties.some(
              (option) => option.name?.getText() === 'state' && option.initializer?.kind === ts.SyntaxKind.TrueKeyword,
            );
            if (!isState) continue;
            if (!stateFields.has(node.name.text)) stateFields.set(node.name.text, new Set());
            stateFields.get(node.name.text).add(property.name.getText());
          }
        }
      }
    },
    packageLinkPhase({ customElementsManifest }) {
      // Element classes, and the modules that register them (each element's define.ts).
      customElementsManifest.modules = customElementsManifest.modules.filter(
        (module) =>
          (module.declarations ?? []).some((declaration) => declaration.customElement) ||
          (module.exports ?? []).some((entry) => entry.kind === 'custom-element-definition' && /^estate-/.test(entry.name)),
      );
      for (const module of customElementsManifest.modules) {
        const moduleConstants = constants.get(module.path) ?? new Map();
        for (const declaration of module.declarations ?? []) {
          if (declaration.tagName && moduleConstants.has(declaration.tagName)) {
            declaration.tagName = moduleConstants.get(declaration.tagName);
          }
          const state = stateFields.get(declaration.name);
          if (state) {
            declaration.attributes = declaration.attributes?.filter((attribute) => !state.has(attribute.fieldName));
            declaration.members = declaration.members?.filter((member) => !state.has(member.name));
          }
          // Attributes set up in a computed `properties` entry (the enquiry form's one-word
          // shorthands, built from a list to keep bytes off every page) are documented with @attr;
          // link each to its declared field by name, as the analyzer does for literal entries.
          for (const attribute of declaration.attributes ?? []) {
            const fieldName = attribute.name.replace(/-([a-z])/g, (_, letter) => letter.toUpperCase());
            const field = declaration.members?.find((member) => member.kind === 'field' && !member.static && member.name === fieldName);
            if (attribute.fieldName || !field) continue;
            attribute.fieldName = fieldName;
            attribute.type = field.type ?? attribute.type;
            field.attribute = attribute.name;
            field.privacy ??= 'public';
          }
          if (declaration.events) declaration.events = declaration.events.filter((event) => /^estate-[a-z0-9-]+$/.test(event.name ?? ''));
        }
        for (const entry of module.exports ?? []) {
          if (entry.kind === 'custom-element-definition' && moduleConstants.has(entry.name)) {
            entry.name = moduleConstants.get(entry.name);
          }
          // A define() of an imported class names its module with a leading slash; the rest have none.
          if (entry.kind === 'custom-element-definition' && entry.declaration?.module?.startsWith('/')) {
            entry.declaration.module = entry.declaration.module.slice(1);
          }
        }
      }
    },
  };
}

export default {
  globs: ['widget/**/*.ts'],
  // widget/shared/ is read for EstateElement (the elements inherit `relay` from it); the helper
  // modules there declare no element and are dropped by the plugin above.
  exclude: ['widget/**/*.test.ts', 'widget/**/*.styles.ts', 'widget/**/*.d.ts', 'widget/loader.ts'],
  outdir: '.',
  litelement: true,
  // The `customElements` field is already in package.json; do not let the analyzer rewrite it.
  packagejson: false,
  dependencies: false,
  plugins: [estateConventionsPlugin()],
};
