package testenv

import "reflect"

// References lists the fields of struct type typ, those of its nested
// structs included (as "outer.inner"), that refer to memory: slices, maps,
// pointers, interfaces, functions and channels, what a copy of a value
// shares with the original. A test of a deep copy holds the list to the
// fields the copy handles, so that a field added later fails it.
func References(typ reflect.Type) []string {
	var out []string
	var walk func(typ reflect.Type, prefix string)
	walk = func(typ reflect.Type, prefix string) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			switch f.Type.Kind() {
			case reflect.Slice, reflect.Map, reflect.Pointer, reflect.Interface, reflect.Func, reflect.Chan:
				out = append(out, prefix+f.Name)
			case reflect.Struct:
				walk(f.Type, prefix+f.Name+".")
			}
		}
	}
	walk(typ, "")
	return out
}
