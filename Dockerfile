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
# nonroot is uid/gid 65532.
USER nonroot:nonroot
EXPOSE 9849
ENTRYPOINT ["/dynamodb_exporter"]
CMD ["serve"]
