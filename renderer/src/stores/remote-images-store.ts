import { defineStore } from 'pinia';

import type { SourceKind } from '@contract';

import { remoteImagesApi } from '../api/remote-images-api';

/**
 * The signed-in person's own choices about remote images in hosted messages (docs/reader.md
 * "Remote images"): always, never or as the install says, and per message or per source.
 */
export const useRemoteImagesStore = defineStore('remoteImages', () => {
  const choices = () => remoteImagesApi.choices();
  /** true: always, false: never, null: as the install says. */
  const setAlways = (always: boolean | null) => remoteImagesApi.setAlways(always);
  const setMessage = (id: number, show: boolean) => remoteImagesApi.setMessage(id, show);
  const setSource = (kind: SourceKind, id: number, show: boolean) =>
    remoteImagesApi.setSource(kind, id, show);

  return { choices, setAlways, setMessage, setSource };
});
