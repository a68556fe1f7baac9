package hwtest

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/phy"
)

// What each node's self-IDs show of its PHY's generation, and the profile
// and phy fields of the topology built from them: the profile is the most
// common generation that fwsim has a profile of, and the other nodes carry
// theirs.
func TestPHYGenerations(t *testing.T) {
	data, err := os.ReadFile("testdata/raw-mixed-phys.txt")
	require.NoError(t, err)
	gens, err := Parse(data, "")
	require.NoError(t, err)
	require.Len(t, gens, 3)
	_, err = phy.LookupProfile(PHY1394b)
	has1394b := err == nil
	for i, c := range []struct {
		phys    []string // each node's generation, with "!" when its self-IDs show it
		profile string
		phy     []string // each node's phy field
	}{
		// Port 16 shows a 1394-1995 hub; nothing shows the others, which
		// take the default.
		{[]string{PHY1995, PHY1995, "!" + PHY1995}, PHY1995, []string{"", "", ""}},
		// Two 1394b PHYs: a bus of 1394a's time, the third node taken as
		// 1394a-2000. Without a 1394b profile the bus runs 1394a-2000.
		{[]string{"!" + PHY1394b, "!" + PHY1394b, PHY1394a}, map[bool]string{true: PHY1394b, false: PHY1394a}[has1394b],
			map[bool][]string{true: {"", "", PHY1394a}, false: {PHY1394b, PHY1394b, ""}}[has1394b]},
		// One of each, and two that show nothing, taken as 1394a-2000:
		// the most common.
		{[]string{"!" + PHY1394b, "!" + PHY1995, PHY1394a, PHY1394a}, PHY1394a, []string{PHY1394b, PHY1995, "", ""}},
	} {
		b := Decode(gens[i])
		require.Empty(t, b.Problems, "bus %d", i+1)
		var phys []string
		for _, g := range b.PHYs() {
			mark := ""
			if g.Evidence != "" {
				mark = "!"
			}
			phys = append(phys, mark+g.Generation)
		}
		assert.Equal(t, c.phys, phys, "bus %d", i+1)
		topo, _, _, err := b.Topology()
		require.NoError(t, err)
		assert.Equal(t, c.profile, topo.Profile, "bus %d", i+1)
		var fields []string
		for _, n := range topo.Nodes {
			fields = append(fields, n.PHY)
			assert.False(t, n.ForceRoot, "bus %d: %s", i+1, n.ID)
		}
		assert.Equal(t, c.phy, fields, "bus %d", i+1)
		require.NoError(t, topo.Validate(bus.ResolveOptions{AllowOutOfSpec: true}), "bus %d", i+1)
	}
}

// Each piece of evidence names its field.
func TestPHYEvidence(t *testing.T) {
	data, err := os.ReadFile("testdata/raw-mixed-phys.txt")
	require.NoError(t, err)
	gens, err := Parse(data, "")
	require.NoError(t, err)
	phys := Decode(gens[2]).PHYs()
	assert.Equal(t, "sp = 11 (S800, the 1394b beta code)", phys[0].Evidence)
	assert.Equal(t, "del = 1 (1394a and 1394b reserve it as 0)", phys[1].Evidence)
	assert.Equal(t, "port 16 (1394a and 1394b PHYs have 16 at most)", Decode(gens[0]).PHYs()[2].Evidence)
}
