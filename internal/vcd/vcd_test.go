package vcd

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWriterOutput pins the exact bytes of a small file, written out by hand
// from the format: comment, timescale, scopes, a comment among the
// declarations, $dumpvars at #0, one time stamp per instant, no line for an
// unchanged value, the final time stamp.
func TestWriterOutput(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	require.NoError(t, w.Comment("seed 7"))
	require.NoError(t, w.Scope("top"))
	a, err := w.Declare(Wire, "a", "z")
	require.NoError(t, err)
	require.NoError(t, w.Scope("sub"))
	s, err := w.Declare(String, "state", "IDLE")
	require.NoError(t, err)
	n, err := w.Declare(Real, "level", "0")
	require.NoError(t, err)
	require.NoError(t, w.Upscope())
	require.NoError(t, w.Upscope())
	require.NoError(t, w.Comment("legend\nlevel: 0=low 2.5=high"))
	require.NoError(t, w.EndDefinitions())
	require.NoError(t, w.Change(0, a, "0"))
	require.NoError(t, w.Change(5, a, "0")) // unchanged: nothing, not even #5
	require.NoError(t, w.Change(10, s, "PARENT_NOTIFY"))
	require.NoError(t, w.Change(10, a, "1"))
	require.NoError(t, w.Change(12, n, "2.5"))
	require.NoError(t, w.Finish(25))
	assert.Equal(t, `$comment
  seed 7
$end
$timescale 1ns $end
$scope module top $end
$var wire 1 ! a $end
$scope module sub $end
$var string 1 " state $end
$var real 64 % level $end
$upscope $end
$upscope $end
$comment
  legend
  level: 0=low 2.5=high
$end
$enddefinitions $end
#0
$dumpvars
z!
sIDLE "
r0 %
$end
0!
#10
sPARENT_NOTIFY "
1!
#12
r2.5 %
#25
`, buf.String())
}

func TestWriterRejectsMisuse(t *testing.T) {
	for _, tc := range []struct {
		name string
		do   func(w *Writer) error
		want string
	}{
		{"variable outside a scope", func(w *Writer) error { _, err := w.Declare(Wire, "a", "0"); return err }, "outside any scope"},
		{"blank in a name", func(w *Writer) error { return w.Scope("my disk") }, `scope name "my disk"`},
		// sigrok ends a header section at "$end" even inside a word.
		{"dollar in a name", func(w *Writer) error { return w.Scope("a$end") }, `scope name "a$end"`},
		{"bad real value", func(w *Writer) error {
			_ = w.Scope("s")
			_, err := w.Declare(Real, "a", "NaN")
			return err
		}, `real value "NaN"`},
		{"empty name", func(w *Writer) error { return w.Scope("") }, `scope name ""`},
		{"bad wire value", func(w *Writer) error {
			_ = w.Scope("s")
			_, err := w.Declare(Wire, "a", "2")
			return err
		}, `wire value "2"`},
		{"blank in a string value", func(w *Writer) error {
			_ = w.Scope("s")
			_, err := w.Declare(String, "a", "two words")
			return err
		}, `string value "two words"`},
		{"upscope at the top", func(w *Writer) error { return w.Upscope() }, "without an open scope"},
		{"open scope at the end", func(w *Writer) error {
			_ = w.Scope("s")
			return w.EndDefinitions()
		}, "1 scopes still open"},
		{"comment after the definitions", func(w *Writer) error {
			_ = w.EndDefinitions()
			return w.Comment("late")
		}, "comment after the definitions ended"},
		{"$end in a comment", func(w *Writer) error { return w.Comment("a $end b") }, "contains $end"},
		{"change before the definitions end", func(w *Writer) error {
			_ = w.Scope("s")
			v, _ := w.Declare(Wire, "a", "0")
			return w.Change(1, v, "1")
		}, "before the definitions ended"},
		{"time goes back", func(w *Writer) error {
			_ = w.Scope("s")
			v, _ := w.Declare(Wire, "a", "0")
			_ = w.Upscope()
			_ = w.EndDefinitions()
			_ = w.Change(10, v, "1")
			return w.Change(9, v, "0")
		}, "time 9 before 10"},
		{"unknown variable", func(w *Writer) error {
			_ = w.EndDefinitions()
			return w.Change(0, Var(3), "1")
		}, "unknown variable 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := NewWriter(&bytes.Buffer{})
			err := tc.do(w)
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrUsage), err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Equal(t, err, w.Finish(100), "errors are sticky")
		})
	}
}

func TestIdentifiers(t *testing.T) {
	seen := map[string]int{}
	const n = 20000 // more than any bus declares: 63 nodes × 27 ports × 6
	for i := range n {
		id := identifier(i)
		prev, dup := seen[id]
		require.False(t, dup, "identifier %q for %d and %d", id, prev, i)
		seen[id] = i
		// The first character never starts a value change, a time stamp or
		// a keyword in any reader the package doc names.
		assert.False(t, strings.ContainsRune("#$01bBrRsSxXzZlLhHuU-", rune(id[0])), id)
		for j := 0; j < len(id); j++ {
			require.True(t, id[j] > ' ' && id[j] <= '~', "%q", id)
		}
	}
	assert.Len(t, identifier(len(idAlphabet)-1), 1)
	assert.Len(t, identifier(len(idAlphabet)), 2)
}

func TestText(t *testing.T) {
	for in, want := range map[string]string{
		"":                        "-",
		"PARENT_NOTIFY":           "PARENT_NOTIFY",
		"connect hub:2–disk:0":    "connect_hub:2-disk:0",
		"a\\b":                    "a/b",
		"state T2 → T3":           "state_T2_?_T3",
		"ROOT_CONTENTION/GRANT":   "ROOT_CONTENTION/GRANT",
		"tab\there\nnewline\rend": "tab_here_newline_end",
	} {
		got := Text(in)
		assert.Equal(t, want, got, in)
		assert.NoError(t, checkValue(String, got), in)
	}
}

// TestRoundTrip: what the Writer writes, Parse reads back as written.
func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	require.NoError(t, w.Comment("round trip"))
	require.NoError(t, w.Scope("n0"))
	var vars []Var
	for _, name := range []string{"w0", "w1", "w2"} {
		v, err := w.Declare(Wire, name, "z")
		require.NoError(t, err)
		vars = append(vars, v)
	}
	str, err := w.Declare(String, "state", "A0")
	require.NoError(t, err)
	num, err := w.Declare(Real, "wait", "0")
	require.NoError(t, err)
	require.NoError(t, w.Upscope())
	require.NoError(t, w.EndDefinitions())
	require.NoError(t, w.Change(3, vars[1], "1"))
	require.NoError(t, w.Change(3, str, "R0"))
	require.NoError(t, w.Change(7, vars[2], "0"))
	require.NoError(t, w.Change(7, num, "-1.5e3"))
	require.NoError(t, w.Finish(9))

	f, err := Parse(&buf)
	require.NoError(t, err)
	assert.Equal(t, []string{"round trip"}, f.Comments)
	assert.Equal(t, "1ns", f.Timescale)
	require.Len(t, f.Vars, 5)
	assert.Equal(t, "n0.state", f.Vars[3].Path())
	assert.Equal(t, String, f.Vars[3].Kind)
	assert.Equal(t, Wire, f.Vars[0].Kind)
	assert.Equal(t, 1, f.Vars[0].Size)
	assert.Equal(t, Declaration{Scope: []string{"n0"}, Name: "wait", Kind: Real, Size: 64, ID: "'"}, f.Vars[4])
	assert.Equal(t, []Change{
		{0, "!", "z"}, {0, `"`, "z"}, {0, "%", "z"}, {0, "&", "A0"}, {0, "'", "0"},
		{3, `"`, "1"}, {3, "&", "R0"}, {7, "%", "0"}, {7, "'", "-1.5e3"},
	}, f.Changes)
	assert.Equal(t, int64(9), f.End)
}

func TestParseAcceptsOtherWriters(t *testing.T) {
	// The layout other tools write: $date and $version, "1 ns", values
	// glued or not, x values, a reg.
	f, err := Parse(strings.NewReader(`$date today $end
$version some simulator $end
$timescale 1 ns $end
$scope module top $end
$var reg 1 # clk $end
$var wire 1 a data [0] $end
$var real 1 r% v $end
$upscope $end
$enddefinitions $end
$comment anything $end
#0 $dumpvars x# 0a R1 r% $end
#5
1# Za
r2.25 r%
`))
	require.NoError(t, err)
	assert.Equal(t, "1ns", f.Timescale)
	assert.Equal(t, "data[0]", f.Vars[1].Name)
	assert.Equal(t, []Change{{0, "#", "x"}, {0, "a", "0"}, {0, "r%", "1"}, {5, "#", "1"}, {5, "a", "z"}, {5, "r%", "2.25"}}, f.Changes)
}

func TestParseErrors(t *testing.T) {
	const head = "$timescale 1ns $end\n$scope module m $end\n$var wire 1 ! a $end\n$var string 1 \" s $end\n$upscope $end\n$enddefinitions $end\n"
	for _, tc := range []struct {
		name, file, want string
	}{
		{"empty", "", "line 1: no $enddefinitions"},
		{"no timescale", "$scope module m $end\n$var wire 1 ! a $end\n$upscope $end\n$enddefinitions $end\n", "no $timescale"},
		{"bad timescale", "$timescale 3 ns $end\n", `timescale "3ns"`},
		{"unclosed section", "$timescale 1ns\n", "line 1: $timescale without $end"},
		{"open scope", "$timescale 1ns $end\n$scope module m $end\n$var wire 1 ! a $end\n$enddefinitions $end\n", "scope m still open"},
		{"duplicate identifier", "$timescale 1ns $end\n$scope module m $end\n$var wire 1 ! a $end\n$var wire 1 ! b $end\n", `line 4: identifier "!" declared twice`},
		{"vector", "$timescale 1ns $end\n$scope module m $end\n$var wire 8 ! a $end\n", "only one-bit wires"},
		{"unknown type", "$timescale 1ns $end\n$scope module m $end\n$var event 1 ! a $end\n", `variable type "event"`},
		{"time goes back", head + "#5\n1!\n#4\n0!\n", "line 9: time goes back from 5 to 4"},
		{"negative time", head + "#-1\n", `time stamp "#-1"`},
		{"change before time", head + "1!\n", "before the first time stamp"},
		{"undeclared", head + "#0\n1?\n", `undeclared identifier "?"`},
		{"illegal wire value", head + "#0\nsHELLO !\n", `identifier "!" is a wire, given a string value`},
		{"scalar to a string", head + "#0\n1\"\n", `identifier "\"" is a string, given a wire value`},
		{"vector value", head + "#0\nb101 !\n", `value change "b101"`},
		{"string without identifier", head + "#0\nsHELLO\n\"\n", "without an identifier"},
		{"unterminated dump", head + "#0\n$dumpvars\n1!\n", "$dump section without $end"},
		{"stray end", head + "#0\n$end\n", "$end outside a section"},
		{"keyword in the body", head + "#0\n$scope module x $end\n", `unexpected "$scope"`},
		{"real without identifier", head + "#0\nr1\n!\n", "without an identifier"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tc.file))
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrMalformed), err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestParseCatchesMutations breaks a file the Writer wrote, one IEEE 1364
// §18 rule at a time, and expects the reader to name each break: a
// waveform that breaks the grammar cannot pass the tests that parse ours.
func TestParseCatchesMutations(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	require.NoError(t, w.Comment("mutations"))
	require.NoError(t, w.Scope("m"))
	a, err := w.Declare(Wire, "a", "z")
	require.NoError(t, err)
	s, err := w.Declare(String, "s", "IDLE")
	require.NoError(t, err)
	r, err := w.Declare(Real, "r", "0")
	require.NoError(t, err)
	require.NoError(t, w.Upscope())
	require.NoError(t, w.EndDefinitions())
	require.NoError(t, w.Change(4, a, "1"))
	require.NoError(t, w.Change(4, s, "BUS_RESET"))
	require.NoError(t, w.Change(9, r, "3"))
	require.NoError(t, w.Finish(20))
	good := buf.String()
	_, err = Parse(strings.NewReader(good))
	require.NoError(t, err, "the unmutated file")

	for _, m := range []struct {
		name, old, new, want string
	}{
		// $var var_type size identifier_code reference $end
		{"var without a name", "$var wire 1 ! a $end", "$var wire 1 ! $end", "$var wants a type, a size"},
		{"var with a word too many", "$var wire 1 ! a $end", "$var wire 1 ! a b c $end", "$var wants a type, a size"},
		{"size not a number", "$var wire 1 ! a $end", "$var wire one ! a $end", `size "one"`},
		{"unknown var type", "$var wire 1 ! a $end", "$var wyre 1 ! a $end", `variable type "wyre"`},
		{"bad bit select", "$var wire 1 ! a $end", "$var wire 1 ! a [x] $end", `"[x]" after the name`},
		{"identifier outside 33-126", "$var wire 1 ! a $end\n", "$var wire 1 \u00e9 a $end\n", "ASCII characters 33 to 126"},
		{"identifier declared twice", `$var string 1 " s $end`, `$var string 1 ! s $end`, `identifier "!" declared twice`},
		{"unknown scope type", "$scope module m $end", "$scope box m $end", `scope type "box"`},
		{"upscope missing", "$upscope $end\n", "", "scope m still open"},
		{"upscope with a name", "$upscope $end", "$upscope m $end", "$upscope takes nothing"},
		{"no timescale", "$timescale 1ns $end\n", "", "no $timescale"},
		{"timescale unit", "$timescale 1ns $end", "$timescale 1 ks $end", `timescale "1ks"`},
		// $dumpvars value_changes $end, at the first time stamp
		{"dumpvars without $end", "r0 %\n$end\n", "r0 %\n", "time stamp #4 inside a $dump section"},
		{"time stamp in dumpvars", "$dumpvars\n", "$dumpvars\n#1\n", "time stamp #1 inside a $dump section"},
		{"enddefinitions with words", "$enddefinitions $end", "$enddefinitions now $end", "$enddefinitions takes nothing"},
		// value changes
		{"blank in a string value", "sBUS_RESET \"", "sBUS RESET \"", `undeclared identifier "RESET"`},
		{"wire value", "1!", "2!", `value change "2!"`},
		{"real value", "r3 %", "rthree %", `real value "three"`},
		{"string value on a real", "r3 %", "s3 %", "is a real, given a string value"},
		{"wire value on a string", "sBUS_RESET \"", "1\"", "is a string, given a wire value"},
		{"undeclared identifier", "1!", "1?", `undeclared identifier "?"`},
		{"time goes back", "#9", "#3", "time goes back from 4 to 3"},
	} {
		t.Run(m.name, func(t *testing.T) {
			require.Contains(t, good, m.old, "the mutation must apply")
			_, err := Parse(strings.NewReader(strings.Replace(good, m.old, m.new, 1)))
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrMalformed), err)
			assert.Contains(t, err.Error(), m.want)
		})
	}
}

// FuzzParse: no input panics the reader, and whatever it accepts holds only
// declared identifiers, legal values and times that never decrease.
func FuzzParse(f *testing.F) {
	f.Add("$timescale 1ns $end\n$scope module m $end\n$var wire 1 ! a $end\n$var string 1 \" s $end\n$var real 64 % r $end\n$upscope $end\n$enddefinitions $end\n#0\n$dumpvars\nz!\nsIDLE \"\nr0 %\n$end\n#3\n1!\nr2 %\n")
	f.Add("$timescale 1 ns $end $enddefinitions $end")
	f.Add("$comment x $end #0 1!")
	f.Fuzz(func(t *testing.T, s string) {
		file, err := Parse(strings.NewReader(s))
		if err != nil {
			return
		}
		kinds := map[string]Kind{}
		for _, d := range file.Vars {
			kinds[d.ID] = d.Kind
		}
		last := int64(0)
		for _, c := range file.Changes {
			k, ok := kinds[c.ID]
			if !ok {
				t.Fatalf("change for undeclared %q", c.ID)
			}
			if err := checkValue(k, c.Value); err != nil {
				t.Fatal(err)
			}
			if c.Time < last {
				t.Fatalf("time %d after %d", c.Time, last)
			}
			last = c.Time
		}
	})
}
