# syntax=docker/dockerfile:1
# prodready: the GitHub App / GitLab webhook server (prodready serve) and every command of
# the CLI, in one static binary.
# Build: make docker   (or: docker build --build-arg VERSION=v1.2.3 -t prodready .)

FROM golang:1.26-bookworm AS build
WORKDIR /src
# Built with the Go release .release-toolchain names (the one scripts/vulncheck.sh
# scans with), fetched and checksum-verified through the module proxy.
COPY go.mod go.sum .release-toolchain ./
RUN GOTOOLCHAIN=$(cat .release-toolchain) go mod download
COPY . .
ARG VERSION=dev
RUN GOTOOLCHAIN=$(cat .release-toolchain) CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" \
      -o /out/prodready ./cmd/prodready

# distroless/static: CA certificates and /etc/passwd, no shell, no package manager.
# Pinned by the digest of its multi-arch index, the same as Dockerfile.release
# (the release image); to update both: crane digest gcr.io/distroless/static-debian12:nonroot
FROM gcr.io/distroless/static-debian12:nonroot@sha256:afa5c872c891853ca7fcf1f12c3edb23f7eeef36189728842dd51042ff57f7ab
COPY --from=build /out/prodready /usr/local/bin/prodready
# 65532 is distroless's "nonroot"; numeric so runAsNonRoot can verify it.
USER 65532:65532
EXPOSE 8080
# The binary handles SIGTERM itself (graceful shutdown), so it runs as PID 1.
ENTRYPOINT ["/usr/local/bin/prodready"]
CMD ["serve"]
