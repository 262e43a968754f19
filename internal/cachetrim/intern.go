package cachetrim

import (
	"reflect"
	"unique"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
)

// TaskTrial keeps a whole TaskTrial, managed fields aside, with its strings interned: a
// campaign's trials repeat the same label keys and values, task definitions (one per task,
// whatever the attempts), images, condition types, reasons and messages, and reward keys, and
// a decoded object holds its own copy of each. At 10,000 trials the trials are most of the
// manager's live heap; sharing those copies is what cuts it, without dropping a field the
// reconcilers read. unique.Make keeps one copy of each distinct string while an object holds it.
func TaskTrial(obj any) (any, error) {
	if trial, ok := obj.(*evalv1.TaskTrial); ok {
		Intern(trial)
	}
	return obj, nil
}

// Intern drops trial's managed fields and interns its strings, in place: TaskTrial's work, for
// a list of trials held outside the cache (the CLI's).
func Intern(trial *evalv1.TaskTrial) {
	trial.ManagedFields = nil
	internStrings(reflect.ValueOf(trial).Elem())
}

// internStrings replaces every settable string reachable from v (struct fields, pointers,
// slice elements, map keys and values) by its interned copy. Fields it cannot set (unexported
// ones, such as a time's or a quantity's) are left alone.
func internStrings(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() && v.Len() > 0 {
			v.SetString(unique.Make(v.String()).Value())
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			internStrings(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				internStrings(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			internStrings(v.Index(i))
		}
	case reflect.Map:
		internMap(v)
	}
}

// internMap interns a map's string keys and its values. Assigning an equal key replaces the
// key the map stores, so a key is interned in place; a value that is not a string is copied
// out, interned and stored back, since map elements cannot be set where they are.
func internMap(m reflect.Value) {
	if m.IsNil() {
		return
	}
	keys := m.MapKeys()
	for _, k := range keys {
		val := reflect.New(m.Type().Elem()).Elem()
		val.Set(m.MapIndex(k))
		internStrings(val)
		if k.Kind() == reflect.String {
			interned := reflect.New(k.Type()).Elem()
			interned.SetString(unique.Make(k.String()).Value())
			k = interned
		}
		m.SetMapIndex(k, val)
	}
}
