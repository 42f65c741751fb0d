package events

import "reflect"

// NonCanonical lists the fields reachable from type ty (named from root)
// that msgpack would not encode one way only: maps other than
// map[string]string and map[string]bool (msgpack sorts only those) and
// interfaces. Payloads and projected states must have none, or the same
// value could hash two ways. Unexported fields and fields tagged json:"-"
// are not encoded and not looked at.
func NonCanonical(root string, ty reflect.Type) []string {
	var out []string
	seen := map[reflect.Type]bool{}
	var walk func(path string, ty reflect.Type)
	walk = func(path string, ty reflect.Type) {
		if seen[ty] {
			return
		}
		seen[ty] = true
		switch ty.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(path, ty.Elem())
		case reflect.Struct:
			for i := 0; i < ty.NumField(); i++ {
				f := ty.Field(i)
				if !f.IsExported() || f.Tag.Get("json") == "-" {
					continue
				}
				walk(path+"."+f.Name, f.Type)
			}
		case reflect.Map:
			if ty.Key().Kind() != reflect.String || (ty.Elem().Kind() != reflect.String && ty.Elem().Kind() != reflect.Bool) {
				out = append(out, path+" is "+ty.String())
			}
		case reflect.Interface:
			out = append(out, path+" is an interface")
		}
	}
	walk(root, ty)
	return out
}
