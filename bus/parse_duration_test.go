package bus

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseWindowAndDeadline(t *testing.T) {
	w, err := ParseWindow("166us..170500ns")
	require.NoError(t, err)
	assert.Equal(t, Window{From: 166000, To: 170500}, w)
	for _, s := range []string{"166us", "2us..1us", "1.0005us..2us", "-1us..2us"} {
		_, err := ParseWindow(s)
		assert.Error(t, err, s)
	}
	d, err := ParseDeadline("1.5us")
	require.NoError(t, err)
	assert.Equal(t, 1500*time.Nanosecond, d)
	_, err = ParseDeadline("1.5ns")
	assert.ErrorContains(t, err, "whole number of nanoseconds")
	_, err = ParseDeadline("-2us")
	assert.ErrorContains(t, err, "positive duration")
	for s, want := range map[string]int{"fixed": 0, "grid:4": 4} {
		k, err := ParsePhaseGrid(s)
		require.NoError(t, err)
		assert.Equal(t, want, k)
	}
	_, err = ParsePhaseGrid("grid:0")
	assert.Error(t, err)
}
