# Container image for dynamodb_exporter.
#
#   docker build -t dynamodb_exporter .
#   docker run -p 9849:9849 -e AWS_REGION=eu-west-1 dynamodb_exporter
#
# The binary is cross-compiled on the build host's platform for the target
# platform, so `docker buildx build --platform linux/amd64,linux/arm64` is fast.

FROM --platform=$BUILDPLATFORM golang:1.26 AS build
ARG TARGETOS
ARG TARGETARCH
ARG VERSION=dev
WORKDIR /src
# Download modules in their own layer, so source changes do not repeat it.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH \
    go build -trimpath \
      -ldflags="-s -w -X github.com/prometheus/common/version.Version=${VERSION}" \
      -o /dynamodb_exporter .

# distroless/static has CA certificates and time zone data, and no shell.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /dynamodb_exporter /dynamodb_exporter
# distroless's nonroot user, by number: Kubernetes can only verify that a
# numeric USER is not root (runAsNonRoot without runAsUser refuses a named
# one). The exporter writes no file, so the root filesystem may be
# read-only (the chart and the Compose stack make it so).
USER 65532:65532
EXPOSE 9849
ENTRYPOINT ["/dynamodb_exporter"]
CMD ["serve"]
