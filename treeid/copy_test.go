package treeid

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fwsim/fwsim/internal/testenv"
)

// CopyFrom copies an Election whole and then what it refers to: every
// reference of the struct is one it copies or keeps on purpose, so that a
// new one fails here until CopyFrom says what it is.
func TestCopyFromDecidesEveryReference(t *testing.T) {
	assert.ElementsMatch(t, []string{
		"cfg.PeerUIDs", "cfg.Rand", "cfg.Chooser", // kept: the bus copies what they hold
		"rounds", // copied
		"trail",  // set by every Begin and Step
	}, testenv.References(reflect.TypeOf(Election{})), "treeid/copy.go")
}
