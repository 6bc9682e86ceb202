# The rendering service (API) and its Temporal worker share this image; compose picks the command.
FROM node:24-bookworm-slim

# chrome-headless-shell renders (and draws video frames on demand), ffmpeg encodes video, and the fonts are the families templates commonly name,
# so text renders in the intended face rather than a fallback; Noto covers the world's scripts (core: Thai, Indic,
# Arabic, Hebrew; cjk: Chinese, Japanese, Korean; color-emoji: emoji) so no text draws as empty boxes.
RUN apt-get update \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    ca-certificates \
    chromium-headless-shell \
    ffmpeg \
    fontconfig \
    fonts-dejavu-core \
    fonts-liberation2 \
    fonts-noto-core \
    fonts-noto-cjk \
    fonts-noto-color-emoji \
    fonts-roboto \
    fonts-open-sans \
    fonts-lato \
  && rm -rf /var/lib/apt/lists/*

WORKDIR /app
RUN mkdir -p /data && chown node:node /app /data
USER node

COPY --chown=node:node package.json package-lock.json ./
# npm install's postinstall applies them (patch-package).
COPY --chown=node:node patches ./patches
# Dev dependencies are included on purpose: vite builds the studio below.
# `npm install` rather than `npm ci`: the lock file is written on mirrors without other platforms' optional packages.
RUN npm install --include=dev --no-audit --no-fund && npm cache clean --force

COPY --chown=node:node . .
# The workflow bundles are built once here, not by every worker at start; the studio page too. With
# tracing on (OTEL_EXPORTER_OTLP_ENDPOINT), set WORKFLOW_BUNDLE_PATH=/app/workflow-bundle.traced.json.
RUN node --import ./infrastructure/system/typescript-imports.ts scripts/bundle-workflows.ts /app/workflow-bundle.json \
  && node --import ./infrastructure/system/typescript-imports.ts scripts/bundle-workflows.ts /app/workflow-bundle.traced.json --traced \
  && node node_modules/vite/bin/vite.js build --config studio/vite.config.ts --logLevel warn

# Two malloc arenas, not glibc's eight per core: every thread that allocates (libuv's sharp work, the
# Temporal core, V8's helpers) got an arena of its own, and memory freed in one is not reused by the
# others; under bench:soak the fifteen arenas kept growing after the warm-up, while with two the
# process's malloc memory stayed flat and 50 MB lower. sharp, seeing it set, draws with every core.
ENV MALLOC_ARENA_MAX=2

ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data \
    WORKFLOW_BUNDLE_PATH=/app/workflow-bundle.json

EXPOSE 3000

HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 3000}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# V8 flags as infrastructure/system/node-flags.ts gives them (why: there).
CMD ["node", "--max-semi-space-size=16", "--import", "./infrastructure/system/typescript-imports.ts", "interfaces/cli/start.ts"]
