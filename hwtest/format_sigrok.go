package hwtest

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/internal/vcd"
)

// The line-state capture formats ReadLines reads: what sigrok (sigrok-cli,
// PulseView) exports from a logic analyzer, and fwsim's own sigrok-dialect
// VCD, which is one of them.
const (
	// FormatSigrokVCD: a Value Change Dump as sigrok writes it (sigrok-cli
	// -O vcd): one-bit wires named by channel (D0 …), a "#t v<id> …" line
	// per sample that changes something, the sample rate in the $comment.
	FormatSigrokVCD Format = "sigrok-vcd"
	// FormatSigrokCSV: sigrok-cli -O csv: ';' comment lines with the
	// channels and the sample rate, a label line, then a row per sample,
	// its time first.
	FormatSigrokCSV Format = "sigrok-csv"
)

// LineFormats lists the line-state capture formats.
func LineFormats() []Format { return []Format{FormatSigrokVCD, FormatSigrokCSV} }

// LineOptions say how to read a line-state capture.
type LineOptions struct {
	// Channels maps the capture's channels to comparators; nil reads the
	// channels named as fwsim's sigrok dialect names them,
	// <node>.p<n>.tpa.hi and so on.
	Channels ChannelMap
	// SampleRateHz is the capture's sample rate, 0 when the capture says
	// it: a CSV export without a "; Samplerate:" line (sigrok-cli -O
	// csv:header=false) needs it. A capture that says its rate must say
	// this one: a rate given never overrides the capture's own.
	SampleRateHz uint64
	// SampleRateName names where SampleRateHz comes from in errors, such
	// as "--samplerate"; "the sample rate given" when empty.
	SampleRateName string
}

// MaxSampleRateHz is the fastest sample rate ReadLines reads: fwsim counts
// time in whole ns, and a sample period below 1 ns would put two samples
// at one time.
const MaxSampleRateHz = 1_000_000_000

// CheckSampleRate refuses a sample rate, in Hz, that ReadLines cannot
// read: one above MaxSampleRateHz.
func CheckSampleRate(hz float64) error {
	if hz > MaxSampleRateHz {
		return fmt.Errorf("a sample period of %s ns is below 1 ns, fwsim's time resolution: want at most 1 GHz (%d Hz)",
			strconv.FormatFloat(1e9/hz, 'g', 3, 64), MaxSampleRateHz)
	}
	return nil
}

// ReadLines reads a line-state capture in format f ("" detects it: a VCD
// starts with a '$' keyword, a sigrok CSV with a ';' comment or
// comma-separated columns) and decodes each mapped port's received line
// states. Bad input is a *ParseError naming the line and the field: input
// that is neither, a channel the map names and the capture lacks, a pair
// driven high and low at once, time going back, a value no comparator
// gives, a sample rate above MaxSampleRateHz or other than the one given.
func ReadLines(r io.Reader, f Format, opts LineOptions) (*LineCapture, error) {
	if err := CheckSampleRate(float64(opts.SampleRateHz)); err != nil {
		return nil, fmt.Errorf("%s, %d Hz: %w", opts.rateName(), opts.SampleRateHz, err)
	}
	in := newLineReader(r)
	if f == "" {
		var seen []textLine // given back for the reader
		for in.next() {
			seen = append(seen, textLine{in.n, in.text})
			if t := strings.TrimSpace(in.text); t != "" && !strings.HasPrefix(t, metaRate) {
				switch {
				case strings.HasPrefix(t, "$"):
					f = FormatSigrokVCD
				case strings.HasPrefix(t, ";") || isCSVRow(t):
					f = FormatSigrokCSV
				default:
					return nil, &ParseError{Line: in.n, Field: "input", Reason: fmt.Sprintf(
						"%s: not a logic-analyzer capture: want a VCD (a $ keyword such as $date or $timescale first) or a sigrok CSV (';' comment lines, or comma-separated columns)",
						excerpt(t))}
				}
				break
			}
		}
		if err := in.err(); err != nil {
			return nil, err
		}
		if f == "" {
			return nil, &ParseError{Field: "input", Reason: "empty: not a logic-analyzer capture: want a VCD or a sigrok CSV"}
		}
		in.back = seen
	}
	in.format = f
	switch f {
	case FormatSigrokVCD:
		return readSigrokVCD(in, opts)
	case FormatSigrokCSV:
		return readSigrokCSV(in, opts)
	}
	return nil, fmt.Errorf("unknown line-state capture format %q (want %s or %s)", f, FormatSigrokVCD, FormatSigrokCSV)
}

// bindChannels makes the decoder for a capture whose channels, in order,
// are names: the channel map's, or those named as fwsim's sigrok dialect
// names them. line is where the channels are declared, for errors, and
// nameLines where each name is.
func bindChannels(f Format, names []string, nameLines []int, opts LineOptions, line int) (*lineDecoder, error) {
	m := opts.Channels
	if m == nil {
		for i, name := range names {
			b, err := parseSignal(name)
			if err != nil {
				if err == errNotSignal {
					continue // another channel: a clock, a trigger
				}
				return nil, &ParseError{Format: f, Line: nameLines[i], Field: name, Reason: err.Error()}
			}
			node, ok := unescapeNode(b.Port.Node)
			if !ok {
				return nil, &ParseError{Format: f, Line: nameLines[i], Field: name, Reason: fmt.Sprintf(
					"node %s: a %% not followed by two hex digits (fwsim's VCD writes a node's other bytes as %%XX)", channelName(b.Port.Node))}
			}
			b.Port.Node, b.Channel = node, name
			m = append(m, b)
		}
		if len(m) == 0 {
			return nil, &ParseError{Format: f, Line: line, Field: "channels", Reason: fmt.Sprintf(
				"none named NODE.pPORT.tpa|tpb.hi|lo (the capture has %s): give a channel map", listNames(names))}
		}
		if err := m.check(); err != nil {
			return nil, &ParseError{Format: f, Line: line, Field: "channels", Reason: err.Error()}
		}
	}
	for _, b := range m {
		if !slices.Contains(names, b.Channel) {
			return nil, &ParseError{Format: f, Line: line, Field: b.Channel, Reason: fmt.Sprintf(
				"the channel map gives it %s, and the capture has no such channel (it has %s)", channelName(b.Signal()), listNames(names))}
		}
	}
	return newLineDecoder(f, m), nil
}

// listNames shows a capture's channels in an error: the first few, within
// a line's length.
func listNames(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	var shown []string
	size := 0
	for _, n := range names {
		if size += len(n); len(shown) == 8 || len(shown) > 0 && size > maxExcerpt {
			break
		}
		shown = append(shown, channelName(n))
	}
	if rest := len(names) - len(shown); rest > 0 {
		return strings.Join(shown, ", ") + fmt.Sprintf(" and %d more", rest)
	}
	return strings.Join(shown, ", ")
}

// channelName shows a channel's name in an error: as it is when it is
// plain, quoted otherwise.
func channelName(s string) string {
	if plainField(s) {
		return s
	}
	return excerpt(s)
}

// unescapeNode reverses the %XX escapes fwsim's VCD writes in node names.
func unescapeNode(s string) (string, bool) {
	if !strings.Contains(s, "%") {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) || !isHex(s[i+1:i+3]) {
			return "", false
		}
		v, _ := strconv.ParseUint(s[i+1:i+3], 16, 8)
		b.WriteByte(byte(v))
		i += 2
	}
	return b.String(), true
}

// metaRate starts the line sigrok-cli prints, in VCD and CSV alike, when
// a file input tells it the sample rate: "META samplerate: 1000000000".
const metaRate = "META samplerate: "

// readMetaRate reads line l, the capture's line number line, when it is a
// metaRate line: its rate is the capture's (captureRate.state).
func readMetaRate(l string, line int, rate *captureRate) (meta bool, err error) {
	r, ok := strings.CutPrefix(strings.TrimSpace(l), metaRate)
	if !ok {
		return false, nil
	}
	hz, err := strconv.ParseUint(r, 10, 64)
	if err != nil || hz == 0 {
		return true, &ParseError{Format: rate.format, Line: line, Field: "samplerate", Reason: fmt.Sprintf("%s: want the rate in Hz", excerpt(r))}
	}
	return true, rate.state(line, "samplerate", r, float64(hz))
}

// vcdLines gives a sigrok VCD's lines to vcd's Scanner: the capture's
// lines, mail quoting stripped, without the metaRate lines sigrok-cli
// prints among them, whose rate it keeps.
type vcdLines struct {
	in   *lineReader
	rate *captureRate
	err  error // a metaRate line that does not parse, or says another rate
}

func (l *vcdLines) Next() (string, int, bool) {
	for l.err == nil && l.in.next() {
		meta, err := readMetaRate(l.in.text, l.in.n, l.rate)
		if err != nil {
			l.err = err
			break
		}
		if meta {
			continue
		}
		return l.in.text, l.in.n, true
	}
	return "", 0, false
}

// Err is what ended the lines early: a bad metaRate line, or the
// reader's error.
func (l *vcdLines) Err() error {
	if l.err != nil {
		return l.err
	}
	return l.in.err()
}

func readSigrokVCD(in *lineReader, opts LineOptions) (*LineCapture, error) {
	rate := &captureRate{opts: opts, format: FormatSigrokVCD}
	lines := &vcdLines{in: in, rate: rate}
	w := vcd.ScanLines(lines)
	fail := func(field, reason string) error {
		return &ParseError{Format: FormatSigrokVCD, Line: w.Line(), Field: field, Reason: reason}
	}
	// section reads the words of a section up to its $end.
	section := func(keyword string) ([]string, error) {
		start := w.Line()
		body, ok := w.Section()
		if ok {
			return body, nil
		}
		if err := w.Err(); err != nil {
			return nil, err
		}
		return nil, &ParseError{Format: FormatSigrokVCD, Line: start, Field: keyword, Reason: "no $end"}
	}
	var (
		names     []string
		nameLines []int              // where each name is declared
		ids       = map[string]int{} // a one-bit wire's id: its index in names; other variables -1
		unitNs    float64            // one timescale unit in ns
		scale     vcd.Timescale      // unitNs as a fraction; zero before the $timescale
		defs      int
	)
header:
	for {
		kw, ok := w.Word()
		if !ok {
			if err := w.Err(); err != nil {
				return nil, err
			}
			return nil, fail("header", "no $enddefinitions: the capture ends in its header")
		}
		if !slices.Contains([]string{"$date", "$version", "$comment", "$timescale", "$scope", "$upscope", "$var", "$enddefinitions"}, kw) {
			return nil, fail("header", fmt.Sprintf("%s: want $date, $version, $comment, $timescale, $scope, $upscope, $var or $enddefinitions", excerpt(kw)))
		}
		line := w.Line()
		body, err := section(kw)
		if err != nil {
			return nil, err
		}
		switch kw {
		case "$date", "$version", "$scope", "$upscope":
		case "$comment":
			// sigrok: "Acquisition with 8/8 channels at 24 MHz".
			if at := slices.Index(body, "at"); at >= 0 && at+1 < len(body) && slices.Contains(body, "Acquisition") {
				text := strings.Join(body[at+1:], " ")
				if hz, ok := parseRate(text); ok {
					f, _ := hz.Float64()
					if err := rate.state(line, kw, text, f); err != nil {
						return nil, err
					}
				}
			}
		case "$timescale":
			ts := strings.Join(body, "")
			var ok bool
			if scale, ok = vcd.ParseTimescale(ts); !ok {
				return nil, fail("$timescale", fmt.Sprintf("%s: want 1, 10 or 100 and s, ms, us, ns, ps or fs", excerpt(ts)))
			}
			unitNs = float64(scale.Num) / float64(scale.Den)
		case "$var":
			if len(body) != 4 && len(body) != 5 {
				return nil, fail("$var", fmt.Sprintf("want a type, a size, an identifier and a name, got %s", excerpt(strings.Join(body, " "))))
			}
			if _, dup := ids[body[2]]; dup {
				return nil, fail("$var", fmt.Sprintf("identifier %s declared twice", excerpt(body[2])))
			}
			ids[body[2]] = -1
			if (body[0] == "wire" || body[0] == "reg") && body[1] == "1" && len(body) == 4 {
				ids[body[2]] = len(names)
				names, nameLines = append(names, body[3]), append(nameLines, line)
			}
		case "$enddefinitions":
			defs = w.Line()
			break header
		}
	}
	if scale.Num == 0 {
		return nil, fail("$timescale", "none in the header: the time of a sample is unknown")
	}
	d, err := bindChannels(FormatSigrokVCD, names, nameLines, opts, defs)
	if err != nil {
		return nil, err
	}
	channel := make(map[string]int, len(ids)) // id → decoder index, -1 when unmapped
	for id, i := range ids {
		channel[id] = -1
		if i >= 0 {
			channel[id] = d.index(names[i])
		}
	}
	now, nowLine, pending := int64(-1), 0, false
	last := int64(-1) // the time stamp before, in timescale units
	for word, ok := w.Word(); ok; word, ok = w.Word() {
		switch c := word[0]; {
		case word == "$dumpvars" || word == "$dumpall" || word == "$dumpon" || word == "$dumpoff" || word == "$end":
		case word == "$comment":
			if _, err := section(word); err != nil {
				return nil, err
			}
		case c == '#':
			t, err := strconv.ParseInt(word[1:], 10, 64)
			if err != nil || t < 0 {
				return nil, fail("time", fmt.Sprintf("%s: want # and a non-negative integer", excerpt(word)))
			}
			ns, ok := scale.Ns(t)
			if !ok {
				return nil, fail("time", fmt.Sprintf("%s: beyond 292 years", excerpt(word)))
			}
			// A sample rate given for a VCD that does not say its own is
			// the tolerance of every time: the stamps, each rounded to the
			// timescale, must be a sample period apart at least.
			if hz := float64(opts.SampleRateHz); rate.stated == 0 && hz > 0 && last >= 0 && t > last && float64(t-last) < 1e9/hz/unitNs-1 {
				return nil, fail("time", fmt.Sprintf("%s comes %d ns after #%d: less than a sample period, %s ns at %d Hz (from %s)",
					word, ns-now, last, strconv.FormatFloat(math.Round(1e12/hz)/1e3, 'f', -1, 64), opts.SampleRateHz, opts.rateName()))
			}
			last = t
			switch {
			case ns < now:
				return nil, fail("time", fmt.Sprintf("goes back from %d ns to %d ns (%s)", now, ns, word))
			case ns > now && pending:
				if err := d.instant(now, nowLine); err != nil {
					return nil, err
				}
				pending = false
			}
			now, nowLine = ns, w.Line()
			d.out.EndNs = max(d.out.EndNs, ns)
		case c == '0' || c == '1' || c == 'x' || c == 'X' || c == 'z' || c == 'Z':
			i, known := channel[word[1:]]
			switch {
			case !known:
				return nil, fail("value", fmt.Sprintf("%s: identifier %s is not declared", excerpt(word), excerpt(word[1:])))
			case now < 0:
				return nil, fail("value", fmt.Sprintf("%s before the first time stamp", excerpt(word)))
			case i < 0:
			case c != '0' && c != '1':
				return nil, fail(d.binds[i].Channel, fmt.Sprintf("%s: a comparator's channel is 0 or 1", excerpt(word)))
			default:
				d.set(i, c == '1')
				pending = true
			}
		case c == 'b' || c == 'B' || c == 'r' || c == 'R' || c == 's' || c == 'S':
			id, _ := w.WordOnLine()
			if i, known := channel[id]; !known || i >= 0 {
				return nil, fail("value", fmt.Sprintf("%s %s: want a one-bit value for a channel", excerpt(word), excerpt(id)))
			}
		default:
			return nil, fail("value", fmt.Sprintf("%s: want a time stamp #t or a value change", excerpt(word)))
		}
	}
	if err := w.Err(); err != nil {
		return nil, err
	}
	if now < 0 {
		return nil, fail("samples", "none: no time stamp after $enddefinitions")
	}
	if err := d.instant(now, nowLine); err != nil {
		return nil, err
	}
	d.out.SamplePeriodNs = unitNs
	if hz := rate.hz(); hz > 0 {
		d.out.SamplePeriodNs = 1e9 / hz
	}
	return d.out, nil
}

// parseRate reads a sample rate as sigrok writes it, exactly: "24 MHz",
// "500 kHz", "33.333333 MHz" (33333333 Hz).
func parseRate(s string) (*big.Rat, bool) {
	num, unit, _ := strings.Cut(strings.TrimSpace(s), " ")
	mult, ok := map[string]int64{"Hz": 1, "kHz": 1e3, "MHz": 1e6, "GHz": 1e9}[strings.TrimSpace(unit)]
	if !ok || num == "" || strings.Trim(num, "0123456789.") != "" { // big.Rat would read 1/3 and 1e9 too
		return nil, false
	}
	hz, ok := new(big.Rat).SetString(num)
	if !ok || hz.Sign() <= 0 {
		return nil, false
	}
	return hz.Mul(hz, big.NewRat(mult, 1)), true
}

// captureRate is a capture's sample rate: the one it says (sigrok's
// $comment, "; Samplerate:" or "META samplerate:" line), or else the one
// given (LineOptions.SampleRateHz). Errors name where it comes from.
type captureRate struct {
	opts   LineOptions
	format Format
	stated float64 // Hz, the capture's own; 0 until it says it
	line   int     // where it says it
	text   string  // and how: "24 MHz"
}

// state records that the capture says, at line in field, that its rate is
// text, hz. It refuses a rate above MaxSampleRateHz, one other than the
// capture said before, and one other than the rate given.
func (r *captureRate) state(line int, field, text string, hz float64) error {
	fail := func(reason string) error {
		return &ParseError{Format: r.format, Line: line, Field: field, Reason: channelName(text) + ": " + reason}
	}
	if err := CheckSampleRate(hz); err != nil {
		return fail(err.Error())
	}
	if r.line > 0 && hz != r.stated {
		return fail(fmt.Sprintf("line %d says %s: which one the capture was recorded at is unknown", r.line, channelName(r.text)))
	}
	if given := r.opts.SampleRateHz; given > 0 && hz != float64(given) {
		return fail(fmt.Sprintf("%s says %d Hz: a capture is read at the rate it says; give that rate, or none", r.opts.rateName(), given))
	}
	r.stated, r.line, r.text = hz, line, text
	return nil
}

// hz is the sample rate, 0 when neither the capture nor the options say it.
func (r *captureRate) hz() float64 {
	if r.stated > 0 {
		return r.stated
	}
	return float64(r.opts.SampleRateHz)
}

// from says where the rate comes from, for errors: "line 5", or the
// option's name.
func (r *captureRate) from() string {
	if r.stated > 0 {
		return fmt.Sprintf("line %d", r.line)
	}
	return r.opts.rateName()
}

// rateName names SampleRateHz in errors.
func (o LineOptions) rateName() string { return cmp.Or(o.SampleRateName, "the sample rate given") }

// csvUnits are the time units sigrok's CSV output labels its time column
// with, by power of 1000 below a second.
var csvUnits = []string{"samples", "milliseconds", "microseconds", "nanoseconds", "picoseconds", "femtoseconds", "attoseconds"}

// csvClock is how a sigrok CSV export counts time: the time column holds
// (k+1)·period for sample k, in units of 1000^-step s, with the period
// truncated to an integer as sigrok computes it.
type csvClock struct {
	rate   uint64 // Hz
	period uint64 // time column units per sample, truncated
}

func newCSVClock(rate uint64) csvClock {
	unit := uint64(1)
	for range csvStep(rate) {
		unit *= 1000
	}
	return csvClock{rate: rate, period: unit / rate}
}

// ns is sample k's time since the first sample, rounded to the ns; false on
// overflow.
func (c csvClock) ns(k uint64) (int64, bool) {
	hi, lo := bits.Mul64(k, 1e9)
	if hi >= c.rate {
		return 0, false
	}
	q, r := bits.Div64(hi, lo, c.rate)
	if r >= c.rate-r {
		q++
	}
	return int64(q), q <= math.MaxInt64
}

func readSigrokCSV(in *lineReader, opts LineOptions) (*LineCapture, error) {
	fail := func(field, reason string) error {
		return &ParseError{Format: FormatSigrokCSV, Line: in.n, Field: field, Reason: reason}
	}
	var (
		names            []string // from "; Channels (n/m): …"
		namesLine        int      // where names are
		rate             = &captureRate{opts: opts, format: FormatSigrokCSV}
		hz               uint64 // the rate, once the first row needs it
		d                *lineDecoder
		columns          []int  // per value column, the decoder index, -1 unmapped
		timeColumn       bool   // the first column is the time
		unit             string // the time column's label when it is a unit, such as nanoseconds
		unitLine         int
		timed            bool // and counts time: sigrok writes 0s when it learnt the rate after the header
		trigger          bool
		clock            csvClock
		sample           uint64 // the next row's sample number without a time column
		last             = int64(-1)
		labelsSeen, rows bool
		fields           []string // the current row's, reused: a capture has millions
	)
	for in.next() {
		line := strings.TrimSpace(in.text)
		if line == "" {
			continue // sigrok ends a frame with a blank line
		}
		if meta, err := readMetaRate(line, in.n, rate); err != nil || meta {
			if err != nil {
				return nil, err
			}
			continue
		}
		if c, ok := strings.CutPrefix(line, ";"); ok {
			c = strings.TrimSpace(c)
			if list, ok := strings.CutPrefix(c, "Channels ("); ok {
				_, list, _ = strings.Cut(list, ":")
				names, namesLine = names[:0], in.n
				for n := range strings.SplitSeq(list, ",") {
					names = append(names, strings.TrimSpace(n))
				}
			} else if r, ok := strings.CutPrefix(c, "Samplerate:"); ok {
				r = strings.TrimSpace(r)
				stated, ok := parseRate(r)
				if !ok || !stated.IsInt() {
					return nil, fail("Samplerate", fmt.Sprintf("%s: want a rate such as 24 MHz", excerpt(r)))
				}
				f, _ := stated.Float64()
				if err := rate.state(in.n, "Samplerate", r, f); err != nil {
					return nil, err
				}
			}
			continue
		}
		fields = splitCSV(fields[:0], line)
		if d == nil {
			labels := !labelsSeen && !isCSVNumber(fields[0])
			if labels {
				labelsSeen = true
				if trigger = len(fields) > 1 && fields[len(fields)-1] == "Trigger"; trigger {
					fields = fields[:len(fields)-1]
				}
				timeColumn = fields[0] == "Time" || slices.Contains(csvUnits, fields[0])
				if timeColumn {
					if fields[0] != "Time" {
						unit, unitLine = fields[0], in.n
					}
					fields = fields[1:]
				}
				if slices.ContainsFunc(fields, func(s string) bool { return s != "logic" }) {
					names, namesLine = slices.Clone(fields), in.n // label=channel: the names themselves
				} else if len(names) != len(fields) {
					return nil, fail("labels", fmt.Sprintf("%d logic columns and %d channels in the \"; Channels\" line: which column is which channel is unknown", len(fields), len(names)))
				}
			} else if !labelsSeen {
				// No label line (label=off): a time column is one more field.
				timeColumn = len(fields) == len(names)+1
			}
			if hz = uint64(rate.hz()); hz == 0 {
				return nil, fail("Samplerate", "no \"; Samplerate:\" or \"META samplerate:\" line and no sample rate given: the time of a sample is unknown")
			}
			clock = newCSVClock(hz)
			var err error
			if d, err = bindChannels(FormatSigrokCSV, names, slices.Repeat([]int{namesLine}, len(names)), opts, in.n); err != nil {
				return nil, err
			}
			d.out.SamplePeriodNs = 1e9 / float64(hz)
			for _, n := range names {
				columns = append(columns, d.index(n))
			}
			if labels {
				continue
			}
		}
		if trigger {
			if len(fields) == 1 {
				return nil, fail("values", fmt.Sprintf("%s alone: want a value for each of %d channels, then the trigger", excerpt(line), len(columns)))
			}
			fields = fields[:len(fields)-1]
		}
		if !rows {
			timed = timeColumn && fields[0] != "0"
			if step := csvStep(hz); timed && unit != "" && unit != csvUnits[step] {
				return nil, &ParseError{Format: FormatSigrokCSV, Line: unitLine, Field: unit, Reason: fmt.Sprintf(
					"sigrok counts time in %s at rates %s; at %d Hz (from %s) it counts in %s",
					unit, unitRates(slices.Index(csvUnits, unit)), hz, rate.from(), csvUnits[step])}
			}
		}
		k := sample
		if timed {
			t, err := strconv.ParseUint(fields[0], 10, 64)
			if err != nil {
				return nil, fail("time", fmt.Sprintf("%s: want the sample's time, a whole number", excerpt(fields[0])))
			}
			if t%clock.period != 0 || t == 0 {
				return nil, fail("time", fmt.Sprintf("%d is no multiple of the sample period, %d %s at %d Hz (from %s)", t, clock.period, csvUnits[csvStep(hz)], hz, rate.from()))
			}
			k = t/clock.period - 1
		}
		if timeColumn {
			fields = fields[1:]
		}
		sample = k + 1
		if len(fields) != len(columns) {
			return nil, fail("values", fmt.Sprintf("%d values for %d channels", len(fields), len(columns)))
		}
		ns, ok := clock.ns(k)
		switch {
		case !ok:
			return nil, fail("time", fmt.Sprintf("sample %d: beyond 292 years", k))
		case ns <= last:
			return nil, fail("time", fmt.Sprintf("sample %d at %d ns does not come after the one before, at %d ns", k, ns, last))
		}
		last = ns
		for i, v := range fields {
			if v != "0" && v != "1" {
				return nil, fail(names[i], fmt.Sprintf("%s: a comparator's channel is 0 or 1", excerpt(v)))
			}
			if columns[i] >= 0 {
				d.set(columns[i], v == "1")
			}
		}
		if err := d.instant(ns, in.n); err != nil {
			return nil, err
		}
		rows = true
	}
	if err := in.err(); err != nil {
		return nil, err
	}
	if !rows {
		return nil, &ParseError{Format: FormatSigrokCSV, Field: "samples", Reason: "none: no row of values"}
	}
	return d.out, nil
}

// csvStep is the power of 1000 below a second sigrok's CSV time column
// counts in at rate.
func csvStep(rate uint64) int {
	step, unit := 0, uint64(1)
	for ; unit < rate && step < len(csvUnits)-1; step++ {
		unit *= 1000
	}
	return step
}

// unitRates says at which rates sigrok's CSV time column counts in
// csvUnits[step].
func unitRates(step int) string {
	hz := []string{"1 Hz", "1 kHz", "1 MHz", "1 GHz", "1 THz", "1 PHz", "1 EHz"}
	if step == 0 {
		return "up to " + hz[0]
	}
	return "above " + hz[step-1] + " up to " + hz[step]
}

// isCSVRow reports a line that starts a sigrok CSV without its header:
// labels, or a time and values. Fields are separated by commas (two at
// least: a port needs four channels) and hold no blank or control
// character, as sigrok's labels and values do.
func isCSVRow(line string) bool {
	fields := strings.Split(line, ",")
	return len(fields) >= 2 && !slices.ContainsFunc(fields, func(f string) bool { return !plainField(strings.TrimSpace(f)) })
}

// splitCSV appends to dst the comma-separated fields of line, blanks
// trimmed.
func splitCSV(dst []string, line string) []string {
	for {
		i := strings.IndexByte(line, ',')
		if i < 0 {
			return append(dst, strings.TrimSpace(line))
		}
		dst = append(dst, strings.TrimSpace(line[:i]))
		line = line[i+1:]
	}
}

// isCSVNumber reports a field of digits: a time, or a value.
func isCSVNumber(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
