# Multi-stage build: a static binary on a minimal base, running as a non-root user.
#   docker build --build-arg VERSION=$(packaging/version.sh) --build-arg REVISION=$(git rev-parse HEAD) .
# GO_VERSION's default is .go-version's without "go" (packaging/packaging_test.go checks that they
# agree): the base image's Go builds, with nothing downloaded by the build. .git is not in the
# context (.dockerignore), so the version (packaging/version.sh: the VERSION file's at a release,
# 0.1.0+103.gd2b6b0a after it) and the revision are arguments, for the binary and the labels.
ARG GO_VERSION=1.27.3
FROM golang:${GO_VERSION}-bookworm AS build
ARG REVISION=unknown
ARG VERSION=0.1.0
ENV GOTOOLCHAIN=local
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN make build VERSION=${VERSION} REVISION=${REVISION} BRANCH=unknown

FROM gcr.io/distroless/static-debian12:nonroot
ARG REVISION=unknown
ARG VERSION=0.1.0
# OCI annotations (https://github.com/opencontainers/image-spec/blob/main/annotations.md); VERSION's
# default is the VERSION file's, checked as GO_VERSION's is.
LABEL org.opencontainers.image.title="cks-drift-exporter" \
      org.opencontainers.image.description="Prometheus exporter for VM map drift of CloudStack Kubernetes clusters" \
      org.opencontainers.image.source="https://github.com/cks-drift-exporter/cks-drift-exporter" \
      org.opencontainers.image.url="https://github.com/cks-drift-exporter/cks-drift-exporter" \
      org.opencontainers.image.documentation="https://github.com/cks-drift-exporter/cks-drift-exporter/blob/main/README.md" \
      org.opencontainers.image.vendor="cks-drift-exporter" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
COPY --from=build /src/cks-drift-exporter /bin/cks-drift-exporter
USER 65532:65532
EXPOSE 9862
VOLUME ["/var/lib/cks-drift-exporter"]
ENTRYPOINT ["/bin/cks-drift-exporter"]
CMD ["--config.file=/etc/cks-drift-exporter/cks-drift-exporter.yml"]
