package sweep

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRowPrefixer(t *testing.T) {
	var b strings.Builder
	p := &RowPrefixer{W: &b, Prefix: "x,", AtLineStart: true}
	for _, chunk := range []string{"a,b\nc", ",d\n", "", "e\nf\n"} {
		n, err := p.Write([]byte(chunk))
		require.NoError(t, err)
		assert.Equal(t, len(chunk), n)
	}
	assert.Equal(t, "x,a,b\nx,c,d\nx,e\nx,f\n", b.String())
}
