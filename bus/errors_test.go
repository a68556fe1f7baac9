package bus

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTopologyErrorFormat(t *testing.T) {
	for _, tc := range []struct {
		err  TopologyError
		want string
	}{
		{TopologyError{File: "bus.yaml", Line: 7, Path: "nodes[1].ports", Msg: "m"}, "bus.yaml:7: nodes[1].ports: m"},
		{TopologyError{File: "bus.yaml", Path: "nodes", Msg: "m"}, "bus.yaml: nodes: m"},
		{TopologyError{Path: "cables[0]", Msg: "m"}, "cables[0]: m"},
		{TopologyError{File: "bus.json", Line: 1, Msg: "m"}, "bus.json:1: m"},
		{TopologyError{Msg: "m"}, "m"},
	} {
		assert.Equal(t, tc.want, tc.err.Error())
	}
	assert.ErrorIs(t, &TopologyError{Kind: ErrPortInUse}, ErrInvalidTopology)
}
