# syntax=docker/dockerfile:1.7
# One image for every service (charts/sms-gateway runs it once per service):
#   docker build -t registry.example.com/smsgw/sms-gateway:0.1.0 \
#     --build-arg VERSION=0.1.0 --build-arg REVISION="$(git rev-parse HEAD)" .
#   docker run --rm registry.example.com/smsgw/sms-gateway:0.1.0 services/account/dist/main.js
# The build steps live in scripts/image/build-app.sh, which e2e/test/image-build.test.ts also runs
# without Docker. Pin both base images by digest where builds must be reproducible.

# 22, which the engines allow (>=20.19 <21 || >=22.13): Node 20's support ended in April 2026.
# Both stages must agree; --build-arg NODE_MAJOR=20 moves both at once.
ARG NODE_MAJOR=22

FROM node:${NODE_MAJOR}-bookworm-slim AS build
WORKDIR /src
# npm as package.json pins it ("packageManager"): the image's own npm is older than the lock file's.
COPY package.json ./
RUN npm install --global --no-audit --no-fund --loglevel=error "$(node -p 'require("./package.json").packageManager')"
COPY . .
# The cache mount keeps npm's download cache across builds (never in the image): a change of
# source then rebuilds without downloading the dependencies again.
RUN --mount=type=cache,target=/root/.npm,sharing=locked \
    bash scripts/image/build-app.sh /src /app

# The phone app's APK (android-agent/android/README.md), built from its sources with Debian's
# Android tools as `make apk` builds it. Sign it with the release key, passed as BuildKit secrets
# so that it never enters a layer:
#   docker build --secret id=apk_keystore,src=release.p12 --secret id=apk_env,src=apk.env ...
# where apk.env sets SMSGW_APK_KEYSTORE_PASSWORD, SMSGW_APK_KEY_ALIAS (and SMSGW_APK_KEY_PASSWORD).
# Without them the stage makes a throwaway development key: phones cannot update such an APK with
# the next image's (another key), so release images need the secrets.
FROM debian:bookworm-slim AS apk
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates openjdk-17-jdk-headless \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY scripts/ensure-android-tools.sh scripts/
COPY android-agent/android android-agent/android
RUN --mount=type=secret,id=apk_keystore --mount=type=secret,id=apk_env \
    set -e; \
    if [ -s /run/secrets/apk_env ]; then set -a; . /run/secrets/apk_env; set +a; export SMSGW_APK_KEYSTORE=/run/secrets/apk_keystore; fi; \
    apt-get update; \
    apk="$(android-agent/android/build.sh | tail -n 1)"; \
    mkdir -p /out && cp "$apk" /out/smsgw-agent.apk

# Distroless rather than node:*-slim or Alpine: no shell, no package manager, nothing but Node and
# glibc (the prebuilt argon2 binary is built for glibc, as in the build stage), so fewer CVEs to
# triage and nothing for an intruder to use. Its entrypoint is node and the :nonroot variant runs
# as UID/GID 65532, which is what the chart's securityContext and its init container expect.
FROM gcr.io/distroless/nodejs${NODE_MAJOR}-debian12:nonroot AS runtime
ARG VERSION=dev
ARG REVISION=unknown
LABEL org.opencontainers.image.title="sms-gateway" \
      org.opencontainers.image.description="SMS gateway platform: every service (account, message, otp, device-hub, scheduler, webhook, gateway, dashboard, smpp) and the operator CLI; run one with its services/<name>/dist/main.js" \
      org.opencontainers.image.source="https://github.com/smsgw/sms-gateway" \
      org.opencontainers.image.url="https://github.com/smsgw/sms-gateway" \
      org.opencontainers.image.vendor="SMS gateway maintainers" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
ENV NODE_ENV=production \
    PATH=/nodejs/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    AGENT_APK_FILE=/app/downloads/smsgw-agent.apk
WORKDIR /app
# Owned by root and not writable by 65532: a service cannot change its own code even where the
# root filesystem is left writable. Services write nowhere but stdout (and /tmp in the chart).
COPY --link --from=build --chown=0:0 /app /app
# The dashboard offers it on the Phones page (GET /downloads/smsgw-agent.apk).
COPY --link --from=apk --chown=0:0 /out/smsgw-agent.apk /app/downloads/smsgw-agent.apk
USER 65532:65532
# gateway, device-hub's phones, dashboard; the gRPC services; SMPP over TLS and its health port; /metrics.
EXPOSE 8443 8444 8445 50051-50056 3550 2776 9464
# node is the entrypoint; the chart sets args to the service to run, e.g. services/otp/dist/main.js.
# Node as PID 1 is fine: every service handles SIGTERM itself and starts no child processes.
CMD ["services/gateway/dist/main.js"]
