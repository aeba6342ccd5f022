# chat-emulator in a container: the npm package, built here and installed into a small Node 24 image.
#   docker build -t chat-emulator .
#   docker run --rm -p 4780:4780 chat-emulator
#   docker run --rm -p 4780:4780 -v "$PWD/state:/data" -e CHAT_EMULATOR_DATA=/data/state.json chat-emulator
#   docker run --rm -p 4780:4780 -v "$PWD/seed.json:/seed/seed.json:ro" -e CHAT_EMULATOR_SEED=/seed/seed.json chat-emulator
# Every flag can also be given as CHAT_EMULATOR_<NAME> (-e) or appended to `docker run ... chat-emulator`.

FROM node:24-alpine AS build
WORKDIR /src
COPY package.json package-lock.json .npmrc ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json README.md LICENSE ./
COPY bin ./bin
COPY fixtures ./fixtures
COPY schemas ./schemas
COPY src ./src
COPY ui ./ui
COPY scripts/prepare.mjs scripts/bundle-cli.mjs scripts/cli-code-cache.mjs ./scripts/
RUN npm run build && CHAT_EMULATOR_PREBUILT=1 npm pack --pack-destination /tmp && mv /tmp/chat-emulator-*.tgz /tmp/chat-emulator.tgz

FROM node:24-alpine
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /tmp/chat-emulator.tgz /tmp/chat-emulator.tgz
RUN npm install --omit=dev --no-audit --no-fund /tmp/chat-emulator.tgz \
 && rm /tmp/chat-emulator.tgz && npm cache clean --force \
 && mkdir -p /data /seed && chown node:node /data
# The CLI's V8 code cache, made by the build stage's Node (the same image): the package ships none, as it holds
# for one Node version only; the launcher uses it only under the version that made it.
COPY --from=build /src/dist/cli.cjs.cache /app/node_modules/chat-emulator/dist/cli.cjs.cache
ENV PATH=/app/node_modules/.bin:$PATH \
    CHAT_EMULATOR_PORT=4780 \
    CHAT_EMULATOR_HOST=0.0.0.0
USER node
EXPOSE 4780
VOLUME ["/data", "/seed"]
HEALTHCHECK --interval=5s --timeout=3s --start-period=5s --retries=3 CMD ["node", "node_modules/chat-emulator/dist/healthcheck.js"]
ENTRYPOINT ["chat-emulator"]
CMD ["--host", "0.0.0.0"]
