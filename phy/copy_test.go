package phy

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwsim/fwsim/internal/testenv"
)

// CopyFrom copies a Machine whole and then what it refers to: every
// reference of the struct is one it copies or keeps on purpose, so that a
// new one fails here until CopyFrom says what it is.
func TestCopyFromDecidesEveryReference(t *testing.T) {
	assert.ElementsMatch(t, []string{
		"cfg.TreeID", // kept: the bus copies the tree identifier's state itself
		"ports.Connected", "ports.Rx", "ports.Tx", "ports.Status", "identified", "transmit", "selfIDBuf", "trail.states",
	}, testenv.References(reflect.TypeOf(Machine{})), "phy/copy.go")
}
