package jsonout

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAbsentValues(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, struct {
		List  []string `json:"list"`
		Empty *string  `json:"empty"`
		Name  *string  `json:"name"`
		None  *int     `json:"none"`
		Index *int64   `json:"index"`
		HTML  string   `json:"html"`
	}{List(([]string)(nil)), NullIfEmpty(""), NullIfEmpty("a"), NullIfNegative(-1), NullIfNegative(int64(0)), "<a&b>"}))
	assert.Equal(t, "{\n  \"list\": [],\n  \"empty\": null,\n  \"name\": \"a\",\n  \"none\": null,\n  \"index\": 0,\n  \"html\": \"<a&b>\"\n}\n", buf.String())
}
