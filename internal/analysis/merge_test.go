package analysis

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
)

// shardJSON is shard k of 2 of a small analysis, as JSON.
func shardJSON(t testing.TB, k int) []byte {
	topo, err := bus.Generate("pair")
	require.NoError(t, err)
	sum, err := Run(context.Background(), Config{Topology: topo, Runs: 40, Shard: Shard{k, 2},
		Deadlines: []time.Duration{time.Microsecond}}, nil)
	require.NoError(t, err)
	out, err := json.Marshal(sum)
	require.NoError(t, err)
	return out
}

func TestReadSummaryRejectsInconsistentFiles(t *testing.T) {
	good := string(shardJSON(t, 1))
	_, err := ReadSummary(strings.NewReader(good))
	require.NoError(t, err)
	for _, tc := range []struct{ old, new, want string }{
		{`"runs":20`, `"runs":21`, "21 runs, want 20"},
		{`"runs":20`, `"runs":20,"extra":1`, `unknown field "extra"`},
		{`"shard":{"k":1`, `"shard":{"k":3`, "shard 3/2 of 40 runs is not a shard"},
		{`"histogram":[[`, `"histogram":[[-5,0],[`, "want ascending values with positive counts"},
		{`"metric":"self_id_ns"`, `"metric":"tree_id_ns"`, "deadline entry 2"},
		{`"stalled":0`, `"stalled":-1`, "count stalled: -1 of 20 runs"},
		{`"runs":20`, `"runs":0`, "0 runs, want at least 1"},
		{`"stalled":0`, `"stalled":0,"exploded":1`, `failures: unknown outcome "exploded"`},
		// Each count is at most the runs, but a run has one root at most.
		{`"roots":{`, `"roots":{"ghost":20,`, "roots: the counts add up to"},
	} {
		bad := strings.Replace(good, tc.old, tc.new, 1)
		require.NotEqual(t, good, bad, tc.old)
		_, err := ReadSummary(strings.NewReader(bad))
		assert.ErrorIs(t, err, ErrInvalidConfig, tc.want)
		assert.ErrorContains(t, err, tc.want)
	}
	_, err = ReadSummary(strings.NewReader(good + good))
	assert.ErrorContains(t, err, "more than one JSON value")
	_, err = ReadSummary(strings.NewReader(`{"runs":`))
	assert.ErrorIs(t, err, ErrInvalidConfig)
}

// FuzzReadSummary: whatever the input, ReadSummary returns an error or a
// Summary that Merge accepts when it is a whole set of shards, and
// re-encoding it reads back the same. It never panics.
func FuzzReadSummary(f *testing.F) {
	f.Add(shardJSON(f, 1))
	f.Add(shardJSON(f, 2))
	f.Add([]byte(`{"runs":1,"metrics":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadSummary(bytes.NewReader(data))
		if err != nil {
			return
		}
		out, err := json.Marshal(s)
		require.NoError(t, err)
		back, err := ReadSummary(bytes.NewReader(out))
		require.NoError(t, err)
		assert.Equal(t, s, back)
		if s.Shard != nil && s.Shard.N == 1 {
			_, err := Merge([]*Summary{s})
			require.NoError(t, err)
		}
	})
}

func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"1/1", "3/8", "0/1", "9/8", "x", "1/", "/2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			return
		}
		require.True(t, 1 <= sh.K && sh.K <= sh.N, "%q gave %v", s, sh)
		again, err := ParseShard(sh.String())
		require.NoError(t, err)
		assert.Equal(t, sh, again)
	})
}
