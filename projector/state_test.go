package projector

import (
	"reflect"
	"testing"
)

// The state hash needs one encoding per state: msgpack sorts only
// map[string]string and map[string]bool keys, so no other map, and no
// interface, may sit in an encoded field of State.
func TestStateEncodesCanonically(t *testing.T) {
	var check func(path string, ty reflect.Type, seen map[reflect.Type]bool)
	check = func(path string, ty reflect.Type, seen map[reflect.Type]bool) {
		if seen[ty] {
			return
		}
		seen[ty] = true
		switch ty.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			check(path, ty.Elem(), seen)
		case reflect.Struct:
			for i := 0; i < ty.NumField(); i++ {
				f := ty.Field(i)
				if !f.IsExported() || f.Tag.Get("json") == "-" {
					continue
				}
				check(path+"."+f.Name, f.Type, seen)
			}
		case reflect.Map:
			if ty.Key().Kind() != reflect.String || (ty.Elem().Kind() != reflect.String && ty.Elem().Kind() != reflect.Bool) {
				t.Errorf("%s is %s: msgpack would encode it in random order", path, ty)
			}
		case reflect.Interface:
			t.Errorf("%s is an interface", path)
		}
	}
	check("State", reflect.TypeOf(State{}), map[reflect.Type]bool{})
}
