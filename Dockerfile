# Build stage: Node + npm bring bun (a dev dependency) and build the one executable.
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# Run stage: only the executable, as a non-root user, with the database on a volume.
FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /data --shell /usr/sbin/nologin dmarcwarden \
 && mkdir -p /data && chown dmarcwarden /data
COPY --from=build /src/dist/dmarcwarden /usr/local/bin/dmarcwarden
USER dmarcwarden
WORKDIR /data
VOLUME ["/data"]
ENV DATABASE_PATH=/data/dmarcwarden.db PORT=8080 HOST=0.0.0.0
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/dmarcwarden"]
CMD ["serve"]
