# Multi-stage build: a static binary on a minimal base, running as a non-root user.
FROM golang:1.26 AS build
# Release builds use go1.27.3: go1.26.8 has reachable standard-library vulnerabilities
# (scripts/govulncheck.sh --strict), fixed in go1.26.9/10 and in go1.27.3.
ENV GOTOOLCHAIN=go1.27.3
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN make build

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /src/cks-drift-exporter /bin/cks-drift-exporter
USER 65532:65532
EXPOSE 9862
VOLUME ["/var/lib/cks-drift-exporter"]
ENTRYPOINT ["/bin/cks-drift-exporter"]
CMD ["--config.file=/etc/cks-drift-exporter/cks-drift-exporter.yml"]
