package view

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTableAlignsWithoutTrailingBlanks(t *testing.T) {
	var tab table
	tab.add("id", "ports", "state")
	tab.add("camera", "p0:parent")
	tab.add("n1", "p0:ncon", "T0")
	var b bytes.Buffer
	tab.write(&b, "  ")
	assert.Equal(t, "  id      ports      state\n  camera  p0:parent\n  n1      p0:ncon    T0\n", b.String())
}
