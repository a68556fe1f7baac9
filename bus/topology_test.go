package bus

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

func TestDurationUnmarshal(t *testing.T) {
	for _, tc := range []struct {
		yaml, json string
		want       Duration
	}{
		{"2ms", `"2ms"`, Duration(2 * time.Millisecond)},
		{"500us", `"500us"`, Duration(500 * time.Microsecond)},
		{"500µs", `"500µs"`, Duration(500 * time.Microsecond)},
		{"1.5s", `"1.5s"`, Duration(1500 * time.Millisecond)},
		{"1h2m", `"1h2m"`, Duration(time.Hour + 2*time.Minute)},
		{"2500", `2500`, 2500},
		{"0", `0`, 0},
		{"-1ms", `"-1ms"`, Duration(-time.Millisecond)}, // resolve rejects it, naming the event
	} {
		var fromYAML, fromJSON struct{ At Duration }
		require.NoError(t, yaml.Unmarshal([]byte("at: "+tc.yaml), &fromYAML), tc.yaml)
		require.NoError(t, json.Unmarshal([]byte(`{"At": `+tc.json+`}`), &fromJSON), tc.json)
		assert.Equal(t, tc.want, fromYAML.At, tc.yaml)
		assert.Equal(t, tc.want, fromJSON.At, tc.json)
	}
}

func TestDurationRejects(t *testing.T) {
	const want = "want a duration such as 2ms or 500us, or an integer number of nanoseconds"
	for _, text := range []string{`"2"`, `"soon"`, `1.5`, `1e6`, `true`, `[1]`, `null`} {
		var d Duration
		assert.ErrorContains(t, json.Unmarshal([]byte(text), &d), want, text)
	}
	for _, text := range []string{`"2"`, `soon`, `1.5`, `true`, `[1]`, `{a: 1}`} {
		var v struct{ At Duration }
		assert.ErrorContains(t, yaml.Unmarshal([]byte("at: "+text), &v), want, text)
	}
}

func TestDurationMarshal(t *testing.T) {
	d := Duration(1500 * time.Microsecond)
	j, err := json.Marshal(d)
	require.NoError(t, err)
	assert.Equal(t, `"1.5ms"`, string(j))
	y, err := yaml.Marshal(d)
	require.NoError(t, err)
	assert.Equal(t, "1.5ms\n", string(y))
	assert.Equal(t, "0s", Duration(0).String())
}
