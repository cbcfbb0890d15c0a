import { join } from 'node:path';
import { projectRoot } from '../http/app.ts';
import { widgetBundleReader } from '../http/widget-assets.ts';

export interface WidgetScriptTags {
  /** `/widget.js`: short cache, follows every upgrade of the relay. */
  latest: string;
  /** `/widget.<hash>.js` with its Subresource Integrity hash: this exact build, cached for a year. */
  pinned?: { url: string; integrity: string; tag: string };
}

/**
 * The two script tags an agency can paste, for the relay reachable at `baseUrl` (PUBLIC_URL when
 * set: behind a proxy the relay cannot know its public address). `pinned` is missing when the
 * bundle has not been built.
 */
export function widgetScriptTags(baseUrl: string, widgetDir = join(projectRoot, 'dist', 'widget')): WidgetScriptTags {
  const base = baseUrl.replace(/\/+$/, '');
  const latest = `<script type="module" src="${base}/widget.js"></script>`;
  const bundle = widgetBundleReader(widgetDir)();
  if (!bundle) return { latest };
  const url = `${base}/${bundle.versionedName}`;
  return {
    latest,
    pinned: {
      url,
      integrity: bundle.integrity,
      tag: `<script type="module" src="${url}" integrity="${bundle.integrity}" crossorigin="anonymous"></script>`,
    },
  };
}
