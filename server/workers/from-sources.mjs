// A worker thread of Herald run from its TypeScript sources (server/lib/worker-file.ts): tsx is
// registered in this thread first, since Node 20 does not hand a parent's loader to a worker,
// then the entry named on the command line is imported. Bundles never use this file: their
// workers are compiled beside them.
import { pathToFileURL } from 'node:url';

import { register } from 'tsx/esm/api';

register();
await import(pathToFileURL(process.argv[2]).href);
