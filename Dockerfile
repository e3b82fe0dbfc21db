# syntax=docker/dockerfile:1
# Build stage: compile TypeScript with the full dependency set.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY wasm ./wasm
COPY scripts/build.mjs ./scripts/build.mjs
# Also writes dist/wasm/pdfium.wasm: PDFium re-optimised by binaryen (a dev dependency; 1–2 min).
# That step falls back quietly on a developer machine; an image must not ship without it.
RUN npm run build && test -s dist/wasm/pdfium.json

# Production dependencies only.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

# Runtime: engine data from Debian packages (OCR model, LibreOffice for legacy Office and
# page counts, metric-compatible fonts: the list is scripts/install-engines.sh, the same step
# `npm start` runs), no compilers, non-root. tini is the container's init: it reaps what a
# killed LibreOffice leaves (Node as process 1 would not), and util-linux's setpriv, which ties
# LibreOffice to the parsing process (src/formats/process-groups.ts), is in every Debian image.
FROM node:20-bookworm-slim
COPY scripts/install-engines.sh /tmp/install-engines.sh
RUN bash /tmp/install-engines.sh \
 && apt-get install -y --no-install-recommends ca-certificates tini \
 && rm -rf /var/lib/apt/lists/* /tmp/install-engines.sh
WORKDIR /app
# No demo tenant in an image unless asked for (DOCPARSE_SEED_DEMO=true at `docker run`): a
# container is a deployment, and its first operator creates the tenants. Without an identity
# provider the first operator signs in to the dashboard with a one-time link or an operator key
# made inside the container: `docker exec -it <container> node dist/bin.js admin sign-in-link`
# or `... admin keys create-operator --name NAME` (docs/dashboard-sign-in.md).
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 DOCPARSE_DATA_DIR=/data DOCPARSE_SEED_DEMO=false
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
# `docparse …` on the PATH, as `npm install -g` would make it (docker exec <container> docparse admin …).
RUN chmod +x dist/bin.js && ln -s /app/dist/bin.js /usr/local/bin/docparse \
 && mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# SIGTERM drains in-flight requests and jobs before exit (see README: Running in production).
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--"]
# glibc's malloc returns freed memory to the system only past a trim threshold that it raises,
# up to 64 MB, each time a large block is freed; V8's optimising compiles of PGlite's WASM
# (≈ 25 MB of scratch memory each on its worker threads) then stay resident after they finish.
# A fixed threshold is never raised: ≈ 40 MB less at idle. 4 MB, not glibc's default 128 KiB,
# at which the node gave memory back and took it again about once a job (docs/performance.md).
ENV MALLOC_TRIM_THRESHOLD_=4194304
# A young generation of 2 × 4 MB instead of V8's 2 × 16 MB: ~20 MB less at idle, no measurable
# CPU cost per job (docs/performance.md, Memory).
CMD ["node", "--max-semi-space-size=4", "dist/bin.js", "serve"]
