package jsonout

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// RepeatedKey is a key that one object of a JSON file gives twice.
type RepeatedKey struct {
	Key string
	// Path is the key's place from the top, as "choices[3].option".
	Path string
	// Line is the 1-based line of its second appearance.
	Line int
}

// FindRepeatedKey finds the first key that one object of the first JSON
// value in data gives twice: encoding/json would keep the last one
// silently, where fwsim's readers refuse it. ok is false when there is
// none, and when data is not JSON: the decoder says what is wrong. It
// reads tokens, so its memory is that of the keys of the open objects,
// and it stops at the end of the first value: what follows is the
// decoder's to refuse (five million digits are five million values).
func FindRepeatedKey(data []byte) (r RepeatedKey, ok bool) {
	type frame struct {
		object bool
		keys   map[string]bool
		seg    string // its place in its parent: a key, or "[i]"
		key    string // the key of the value to come, in an object
		keyed  bool   // whether key is read
		index  int    // the index of the next value, in an array
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var stack []frame
	// The path is built only for the answer: building it at every level
	// would cost the square of a deep file's depth.
	pathTo := func(key string) string {
		var b strings.Builder
		for _, f := range stack[1:] {
			if b.Len() > 0 && !strings.HasPrefix(f.seg, "[") {
				b.WriteByte('.')
			}
			b.WriteString(f.seg)
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(key)
		return b.String()
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return RepeatedKey{}, false
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return RepeatedKey{}, false
			}
			continue
		}
		seg := ""
		if n := len(stack); n > 0 {
			top := &stack[n-1]
			if top.object && !top.keyed {
				k := tok.(string) // a key: Token reads objects as key, value
				if top.keys[k] {
					line := bytes.Count(data[:dec.InputOffset()], []byte("\n")) + 1
					return RepeatedKey{Key: k, Path: pathTo(k), Line: line}, true
				}
				top.keys[k], top.key, top.keyed = true, k, true
				continue
			}
			if top.object {
				seg, top.keyed = top.key, false
			} else {
				seg = "[" + strconv.Itoa(top.index) + "]"
				top.index++
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{object: true, keys: map[string]bool{}, seg: seg})
		case json.Delim('['):
			stack = append(stack, frame{seg: seg})
		default:
			if len(stack) == 0 {
				return RepeatedKey{}, false // a lone number, string, …
			}
		}
	}
}
