package election

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSizesSteps125(t *testing.T) {
	sizes, err := ParseSizes("n=10..1000")
	require.NoError(t, err)
	assert.Equal(t, []int{10, 20, 50, 100, 200, 500, 1000}, sizes)
	sizes, err = ParseSizes("n=7..7")
	require.NoError(t, err)
	assert.Equal(t, []int{7}, sizes)
	for spec, want := range map[string]string{
		"10..100":   "want n=FROM..TO",
		"n=1..10":   "the smallest ring or tree has 2 nodes",
		"n=20..10":  "TO is smaller than FROM",
		"n=a..10":   "whole numbers",
		"n=2..1e99": "whole numbers",
	} {
		_, err := ParseSizes(spec)
		assert.ErrorContains(t, err, want, spec)
	}
}

func TestSelectSweepCases(t *testing.T) {
	assert.Len(t, SelectSweepCases("", "", ""), len(SweepCases))
	cr := SelectSweepCases("chang-roberts", "", SweepCaseName("descending"))
	require.Len(t, cr, 1)
	assert.Equal(t, "worst", cr[0].Name)
	assert.Empty(t, SelectSweepCases("echo", "ring", ""), "echo runs on trees")
	assert.Len(t, SelectSweepCases("floodmax", "", ""), 2)
	assert.Equal(t, "", SweepCaseName("sideways"))
}

func TestParseInitiatorCount(t *testing.T) {
	for s, want := range map[string]int{"all": AllNodes, "one": 1, "3": 3} {
		got, err := ParseInitiatorCount(s)
		require.NoError(t, err, s)
		assert.Equal(t, want, got, s)
	}
	for _, s := range []string{"0", "-2", "many", ""} {
		_, err := ParseInitiatorCount(s)
		assert.Error(t, err, s)
	}
}
