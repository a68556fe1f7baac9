package jsonout

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFindRepeatedKey(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want RepeatedKey
		ok   bool
	}{
		{`{"a": 1, "b": {"a": 2}}`, RepeatedKey{}, false},
		{"{\"a\": 1,\n \"a\": 2}", RepeatedKey{Key: "a", Path: "a", Line: 2}, true},
		{"{\"c\": [{\"x\": 1}, {\"x\": 1,\n\n \"x\": 3}]}", RepeatedKey{Key: "x", Path: "c[1].x", Line: 3}, true},
		{`{"a": 1} {"a": 1, "a": 2}`, RepeatedKey{}, false}, // the second value is the decoder's to refuse
		{`{"a": `, RepeatedKey{}, false},
	} {
		got, ok := FindRepeatedKey([]byte(tc.in))
		assert.Equal(t, tc.ok, ok, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
}
