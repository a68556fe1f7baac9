# A small image of the fwsim command line, for batch systems such as the
# Kubernetes indexed Job in docs/timing.md:
#
#   docker build -t fwsim .
#   docker run --rm fwsim run --gen pair --seed 3
#
# The binary is static (no cgo: the USB probe path, build tag gousb, is not
# in it). The final stage is BusyBox so that a job can use sh for its
# shell arithmetic; the binary alone would run on scratch.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/fwsim ./cmd/fwsim

FROM busybox:1.36-musl
COPY --from=build /out/fwsim /usr/local/bin/fwsim
USER 65534:65534
ENTRYPOINT ["fwsim"]
