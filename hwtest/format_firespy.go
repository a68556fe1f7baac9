package hwtest

import (
	"fmt"
	"strconv"
	"strings"
)

// A FireSpy quadlets data file (.qdl; the DapTechnology 1394 Analyzer
// Operation Manual, "File Formats") holds blocks of quadlets, each written
// as hex digits followed by 'h' or as a decimal number, separated by blanks
// or line ends; a line without data separates blocks:
//
//	FFFF008Fh FFC5FFFFh
//	4294901903 4291166207
//
// Each block is a bus reset here, with or without the inverse quadlets, and
// '#' starts a comment, as in a raw dump. The manual allows floating-point numbers too, which no
// self-ID is: they are refused. A file of decimal numbers only cannot be
// told from a raw hex dump: name the format.

// fireSpyKind tells a line of quadlets with at least one 'h' among them
// ("quadlets") from any other ("").
func fireSpyKind(l string) string {
	suffixed := false
	for f := range strings.FieldsSeq(withoutComment(l)) {
		if _, hex, ok := fireSpyQuadlet(f); !ok {
			return ""
		} else if hex {
			suffixed = true
		}
	}
	if suffixed {
		return "quadlets"
	}
	return ""
}

// fireSpyQuadlet reads one quadlet: hex reports the 'h' form.
func fireSpyQuadlet(f string) (q uint32, hex, ok bool) {
	if digits, cut := strings.CutSuffix(f, "h"); cut {
		v, err := strconv.ParseUint(digits, 16, 32)
		return uint32(v), true, err == nil && isHex(digits)
	}
	v, err := strconv.ParseUint(f, 10, 32)
	return uint32(v), false, err == nil && isDecimal(f)
}

// appendFireSpyQuadlets appends the quadlets of line n.
func appendFireSpyQuadlets(qs []uint32, l string, n int) ([]uint32, error) {
	for f := range strings.FieldsSeq(withoutComment(l)) {
		q, _, ok := fireSpyQuadlet(f)
		if !ok {
			reason := fmt.Sprintf("%s is not a quadlet as a FireSpy quadlets file writes it: hex digits and h (FFFF008Fh), or a decimal number up to 4294967295", excerpt(f))
			if _, err := strconv.ParseFloat(f, 64); err == nil && strings.ContainsAny(f, ".eE") {
				reason = fmt.Sprintf("%s is a floating-point number, which no self-ID quadlet is", excerpt(f))
			} else if isDecimal(f) {
				reason = fmt.Sprintf("%s is more than 4294967295, the largest quadlet", excerpt(f))
			}
			return qs, &ParseError{Format: FormatFireSpy, Line: n, Field: "quadlet", Reason: reason}
		}
		qs = append(qs, q)
	}
	return qs, nil
}
