package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
)

// TestRunUntilReportsTraffic: --until runs the traffic of the topology
// after initialisation, in the text report and in JSON; a run without it
// and without traffic in its file has no traffic in either.
func TestRunUntilReportsTraffic(t *testing.T) {
	code, stdout, stderr := runCLI(t, "run", "--topology", "../../examples/traffic.yaml", "--until", "500us")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "traffic from ")
	assert.Contains(t, stdout, "cycle master n0: ")
	assert.Regexp(t, `collisions [1-9]`, stdout, "gap count 5 on 15 hops collides")

	code, stdout, stderr = runCLI(t, "run", "--topology", "../../examples/traffic.yaml", "--until", "500us", "--json")
	require.Equal(t, exitOK, code, stderr)
	var out bus.ResultJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &out))
	require.NotNil(t, out.Traffic)
	assert.Equal(t, out.Traffic.StartNs+500_000, out.Traffic.EndNs)
	assert.Len(t, out.Traffic.Flows, 4)

	code, stdout, _ = runCLI(t, "run", "--gen", "pair", "--json")
	require.Equal(t, exitOK, code)
	assert.NotContains(t, stdout, `"traffic"`)
}

// TestUntilErrors: a --until the bus cannot run, and a gap-count sweep
// with nothing to measure, are usage errors that say why.
func TestUntilErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--until", "0s"}, "--until 0s: want more than 0 and at most 1s"},
		{[]string{"run", "--until", "2s"}, "--until 2s: want more than 0 and at most 1s"},
		{[]string{"analyze", "--until", "-1ms"}, "--until -1ms: want more than 0"},
		{[]string{"sweep", "--gen", "chain:3", "--param", "gap_count=1..63:2"}, "gap_count changes only the traffic after initialisation"},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		assert.Equal(t, exitUsage, code, tc.args)
		assert.Contains(t, stderr, tc.want, tc.args)
	}
}

// TestTrafficFlag: --traffic adds traffic to any bus, a generated one
// too; a malformed or impossible item is a usage or input error naming
// the flag and what is wrong.
func TestTrafficFlag(t *testing.T) {
	code, stdout, stderr := runCLI(t, "run", "--gen", "chain:4", "--until", "200us", "--json",
		"--traffic", "node=n0,to=n3,size=100,every=20us", "--traffic", "node=n3,iso=64,speed=S100", "--profile", "1394a-2000",
		"--traffic", "node=n1,ping=n3,every=50us")
	require.Equal(t, exitOK, code, stderr)
	var out bus.ResultJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &out))
	require.NotNil(t, out.Traffic)
	require.Len(t, out.Traffic.Flows, 3)
	assert.Equal(t, "n0", out.Traffic.Flows[0].Node)
	assert.Positive(t, out.Traffic.Flows[0].Acked)
	assert.Equal(t, "iso", out.Traffic.Flows[1].Kind)
	ping := out.Traffic.Flows[2]
	assert.Equal(t, "ping", ping.Kind)
	require.NotNil(t, ping.RoundTripNs)
	assert.Positive(t, ping.RoundTripNs.Count)
	assert.Nil(t, out.Traffic.Flows[0].RoundTripNs)

	for _, tc := range []struct{ spec, want string }{
		{"node=n0", "give exactly one of to=, iso= and ping="},
		{"node=n0,to=n3", "requests (to=) need size="},
		{"node=n0,to=n3,size=big", "size=big is not a whole number"},
		{"node=n0,iso=5,every=1us", "every= is for requests (to=), not a talker (iso=)"},
		{"node=n0,colour=red", `unknown key "colour"`},
		{"node=zz,iso=10", `--traffic node=zz,iso=10: no node "zz" on the bus`},
		{"node=n0,to=n3,size=4096", "--traffic node=n0,to=n3,size=4096: payload 4096 bytes, want 0 to 2048 at S400"},
	} {
		code, _, stderr := runCLI(t, "run", "--gen", "chain:4", "--traffic", tc.spec)
		assert.NotEqual(t, exitOK, code, tc.spec)
		assert.Contains(t, stderr, tc.want, tc.spec)
	}
}
