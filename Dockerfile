# Herald, headless, for a server (docs/running-for-a-team.md "Docker").
# Three stages: the build (console and server bundle, with the dev tools), the runtime
# dependencies (native modules compiled here, no dev tools kept), and the image itself.
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS toolchain
# sqlite3, better-sqlite3 and argon2 are native modules; sqlite3 has no prebuilt binary here.
# The toolchain is not pinned (hadolint DL3008): it takes bookworm's current fixes, and none of it
# reaches the final stage.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*

FROM toolchain AS build
# Electron, an optional dependency for the desktop app, has no place in the image: its install
# script would download a whole Chromium build for nothing.
ENV ELECTRON_SKIP_BINARY_DOWNLOAD=1
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build:renderer && npm run build:server

FROM toolchain AS runtime-deps
WORKDIR /app
COPY package.json package-lock.json ./
# Electron (optional) is the desktop app's, not the server's.
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund \
 && npm cache clean --force
# What compiling the native modules left behind (object files, static libraries, the bundled
# SQLite sources, better-sqlite3's test extension): Node loads only build/Release/*.node.
RUN find node_modules -path '*/build/Release/*' \
      \( -name obj.target -o -name obj -o -name .deps -o -name '*.a' -o -name test_extension.node \) \
      -prune -exec rm -rf {} + \
 && rm -rf node_modules/better-sqlite3/deps node_modules/sqlite3/deps

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    HERALD_DATA_DIR=/data \
    HERALD_HOST=0.0.0.0 \
    HERALD_PORT=8765 \
    HERALD_LOG_FORMAT=json
WORKDIR /app
COPY --from=runtime-deps /app/node_modules ./node_modules
COPY --from=build /src/package.json ./package.json
COPY --from=build /src/out/server ./out/server
COPY --from=build /src/renderer/dist ./renderer/dist
# The data folder belongs to the unprivileged user the image runs as (Herald keeps it 0700).
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8765
# It asks the port Herald listens on: HERALD_PORT, which a user may change with `-e`.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.HERALD_PORT || 8765) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Herald stops on SIGTERM within 15 s; node as PID 1 receives it directly (exec form).
CMD ["node", "out/server/cli.js"]
