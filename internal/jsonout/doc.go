// Package jsonout holds what every JSON output of fwsim shares: how it is
// written (indented, HTML left unescaped) and how an absent value reads
// (an empty list as [], an empty string or a negative index as null), so
// that the JSON types of bus, explore, the labs and hwtest follow one
// convention. Its readers' side is FindRepeatedKey: a key given twice is
// refused, not read as its last value. It imports nothing of fwsim.
package jsonout
