package mutex

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A lab's time is in delays, bare or with the unit d; a bus's units are
// refused by name, not read as some number of delays.
func TestParseTimeUnit(t *testing.T) {
	for _, s := range []string{"2.5", "2.5d", "2.500d"} {
		got, err := ParseTime(s)
		require.NoError(t, err, s)
		assert.Equal(t, int64(2*Delay+Delay/2), got, s)
	}
	for s, msg := range map[string]string{
		"2us":  "the labs count time in delays (d), not us",
		"2ns":  "the labs count time in delays (d), not ns",
		"1.5s": "the labs count time in delays (d), not s",
		"d":    "want a number of delays",
		"2dd":  "want a number of delays",
		"-1d":  "want a number of delays",
	} {
		_, err := ParseTime(s)
		require.Error(t, err, s)
		assert.Contains(t, err.Error(), msg, s)
	}
}
