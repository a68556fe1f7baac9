# An image of the fwsim command line, for batch systems such as the
# Kubernetes indexed Job in docs/timing.md, and for a run anywhere:
#
#   docker build -t fwsim .
#   docker run --rm fwsim run --gen pair --seed 3
#   docker run --rm --user "$(id -u):$(id -g)" -v "$PWD:/data" fwsim \
#       run --topology examples/hotplug.yaml --svg hotplug.svg
#
# It works in /data, where a volume puts your directory, so that files a
# command writes land there; it runs as nobody (65534) unless --user says
# otherwise. The examples are in /data/examples when nothing is mounted
# there, and always in /usr/local/share/fwsim/examples. Graphviz's dot is in
# it for --svg; sh (dash) for a job's shell arithmetic. The binary is
# static (no cgo: the USB probe path, build tag gousb, is not in it).
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/fwsim ./cmd/fwsim

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends graphviz \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/fwsim /usr/local/bin/fwsim
COPY examples /usr/local/share/fwsim/examples
COPY examples /data/examples
RUN chmod 1777 /data
WORKDIR /data
USER 65534:65534
ENTRYPOINT ["fwsim"]
