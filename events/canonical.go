package events

import "reflect"

// NonCanonical lists the fields reachable from type ty (named from root)
// that msgpack would not encode one way only: maps other than
// map[string]string and map[string]bool (msgpack sorts only those) and
// interfaces. Payloads and projected states must have none, or the same
// value could hash two ways. Unexported fields and fields tagged json:"-"
// are not encoded and not looked at.
//
// An interface type that impls lists is an extension point (the editions'
// parts of a projected state): msgpack encodes the concrete value inside,
// so each concrete type listed is walked in its place, named
// "path(type)". A listed interface with no types is left to whoever knows
// its implementations.
func NonCanonical(root string, ty reflect.Type, impls map[reflect.Type][]reflect.Type) []string {
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
			concrete, ok := impls[ty]
			if !ok {
				out = append(out, path+" is an interface")
			}
			for _, c := range concrete {
				walk(path+"("+c.String()+")", c)
			}
		}
	}
	walk(root, ty)
	return out
}
