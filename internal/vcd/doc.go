// Package vcd writes and reads IEEE 1364 Value Change Dump files, the subset
// fwsim's waveforms and logic analyzers' captures use: nested module scopes, one-bit wires with the values
// 0, 1, x and z, reals, and string variables.
//
// # What the files contain
//
// A Writer produces a header without a $date line (so the same run gives the
// same bytes), a $timescale, the scopes and variables (comments may come
// before or among them), $enddefinitions, the initial value of every
// variable in a $dumpvars block at #0, and then one "#t" time stamp per
// instant at which something changed, followed by the changes. A variable
// that is set to the value it already has writes nothing.
//
// Names may not contain '$': libsigrok ends a header section at the first
// "$end", even inside a word.
//
// # Reals
//
// A Real is declared "$var real 64 <id> <name> $end" and changes as
// "r<number> <id>". GTKWave shows it as a number, current sigrok as an
// analog channel, and sigrok 0.5 skips it without a warning. Bit vectors
// would not do for sigrok: sigrok 0.5 stops reading a block of the file at
// the first multi-bit value, which is why bus's sigrok dialect writes
// one-bit wires only.
//
// # String variables
//
// IEEE 1364 has no string type. GTKWave's extension declares one as
//
//	$var string 1 <id> <name> $end
//
// with value changes "s<text> <id>", and shows the text in the waveform.
// sigrok (PulseView, sigrok-cli) accepts the same file: its current VCD
// input skips string variables and their changes with a warning, and older
// releases skip the unknown declaration and tokens. Both tools split value
// changes at white space, so a string value here is printable ASCII without
// blanks; Text maps any text to such a value. The one-bit wires, which carry
// the information a logic analyser shows, open everywhere.
//
// Identifier codes avoid the characters that start a time stamp, a keyword
// or a value change (#, $, 0, 1, b, r, s, x, z, …): an older sigrok reader,
// which skips the "s<text>" token it does not know, would otherwise take the
// identifier that follows it for a value change.
//
// # Reading
//
// Parse reads a file back and checks it against the IEEE 1364 §18 grammar
// the way a viewer would: a complete header, $var with a type, a decimal
// size, an identifier code of ASCII 33 to 126 and a name (and optionally a
// bit select), balanced scopes of a legal type, every identifier declared
// once and every change naming a declared one, $dumpvars closed by $end,
// time that never goes back, and only legal values for each type. fwsim's
// tests use it so that a broken waveform cannot pass.
//
// Parse reads through a Scanner, the one VCD tokenizer of fwsim: a
// blank-separated word at a time with its line, sections up to $end, the
// identifier on the line of a value, holding one line. A reader with rules
// of its own reads with it too: hwtest's sigrok reader streams a logic
// analyzer's capture through ScanLines, over lines it unquotes and filters
// itself. ParseTimescale and Timescale.Ns turn time stamps into ns.
package vcd
