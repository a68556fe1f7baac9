package jsonout

import (
	"encoding/json"
	"fmt"
	"io"
)

// Write writes v as indented JSON, HTML characters as they are.
func Write(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("writing JSON: %w", err)
	}
	return nil
}

// List is s, or an empty list where s is nil: a list field reads [] in
// JSON, never null.
func List[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// NullIfEmpty is a string field that reads null where s is "".
func NullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// NullIfNegative is an index or count field that reads null where v is
// negative (none).
func NullIfNegative[T int | int64](v T) *T {
	if v < 0 {
		return nil
	}
	return &v
}
