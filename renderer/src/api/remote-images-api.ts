import type { SourceKind, consoleRoutes } from '@contract';

import { call } from './http-client';

type Routes = typeof consoleRoutes.imageProxy;

/** The signed-in person's remote-image choices (docs/reader.md "Remote images"). */
export const remoteImagesApi = {
  choices: () => call<Routes['choices']>('GET', '/remote-images'),
  /** true: always, false: never, null: as the install says. */
  setAlways: (always: boolean | null) =>
    call<Routes['setAlways']>('PUT', '/remote-images', { body: { always } }),
  setMessage: (id: number, show: boolean) =>
    call<Routes['setMessage']>('PUT', `/remote-images/messages/${id}`, { body: { show } }),
  setSource: (kind: SourceKind, id: number, show: boolean) =>
    call<Routes['setSource']>('PUT', `/remote-images/sources/${kind}/${id}`, { body: { show } }),
};
