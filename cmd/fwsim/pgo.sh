#!/bin/sh
# Writes cmd/fwsim/default.pgo: CPU profiles of the emulator's benchmarks,
# merged, which the go command uses to guide inlining and devirtualisation
# whenever it builds fwsim (profile-guided optimisation, go.dev/doc/pgo).
# Run it again (go generate ./cmd/fwsim) after changing the emulator's hot
# path: a stale profile still builds and runs correctly, only less fast.
set -eu
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
profile() { # package, benchmarks, time
	go test -run '^$' -bench "$2" -benchtime "$3" -o "$tmp/$(basename "$1").test" \
		-cpuprofile "$tmp/$(basename "$1").prof" "$1" >/dev/null
}
profile ./bus 'Simulator(Pair|Init63)$|^BenchmarkInit63$' 3s            # Monte Carlo runs, and Run with its Result
profile ./analysis 'Analyze/.*/workers=1$' 2s                 # fwsim analyze
profile ./explore 'Explore' 1x                                         # fwsim explore
go tool pprof -proto "$tmp"/*.prof >cmd/fwsim/default.pgo
