/** An element class that names the elements it renders (Shoelace's `static dependencies`). */
export interface WithDependencies {
  dependencies?: Record<string, CustomElementConstructor>;
}

/**
 * Registers the elements an element renders, before the element itself, so its first render never
 * meets an unknown tag. Guarded: a host page may load the widget twice.
 */
export function defineDependencies(element: WithDependencies): void {
  for (const [tag, dependency] of Object.entries(element.dependencies ?? {})) {
    defineDependencies(dependency as WithDependencies);
    if (!customElements.get(tag)) customElements.define(tag, dependency);
  }
}
