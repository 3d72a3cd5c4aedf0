# Production image: `docker build -t wo-service .` then
#   docker run --rm -e DATABASE_URL=… -e REDIS_URL=… wo-service node dist/operator/cli.js … (operator CLI)
#   docker run --rm -e DATABASE_URL=… wo-service npm run migrate                           (migrations)
#   docker run -d -p 4000:4000 -e DATABASE_URL=… -e REDIS_URL=… wo-service                  (API + workers)
#
# scripts/production-check.sh replays these steps (FROM stages as directories, WORKDIR, ENV, COPY,
# RUN, then CMD and HEALTHCHECK) without Docker, so CI proves this file's production path; keep to
# those instructions and to paths relative to WORKDIR.

# ---- build: every dependency (TypeScript, the Prisma generator), then compile src/ to dist/
FROM node:20-bookworm-slim AS build
WORKDIR /app
# prisma.config.ts reads src/config.ts (the database URL; it parses URLs with src/database-urls.ts);
# `prisma generate` runs on install.
COPY package.json package-lock.json prisma.config.ts tsconfig.json tsconfig.build.json ./
COPY prisma ./prisma
COPY scripts ./scripts
COPY src/config.ts src/database-urls.ts ./src/
RUN bash scripts/ensure-deps.sh
COPY src ./src
RUN npm run build

# ---- runtime: production dependencies only, the compiled code, the guides served at /docs
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
COPY scripts ./scripts
COPY src/config.ts src/database-urls.ts ./src/
RUN bash scripts/ensure-deps.sh --omit=dev
COPY docs ./docs
COPY examples ./examples
COPY --from=build /app/dist ./dist
USER node
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 CMD node -e "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
CMD ["node", "dist/main.js"]
