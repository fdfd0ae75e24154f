package verbatim_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/internal/verbatim"
)

func TestEdit_KeepsTheRestInItsOrder(t *testing.T) {
	t.Parallel()
	obj := []byte(`{"z":{"b":1,"a":2},"ttlMs":0,"m":[3,1],"a":"<x>","gone":true}`)
	got, err := verbatim.Edit(obj, func(k string) bool { return k == "ttlMs" },
		verbatim.Member{Key: "m", Value: json.RawMessage(`"set"`)},
		verbatim.Member{Key: "gone", Value: nil},
		verbatim.Member{Key: "new", Value: json.RawMessage(`{"y":1,"x":2}`)})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"z":{"b":1,"a":2},"m":"set","a":"<x>","new":{"y":1,"x":2}}`; string(got) != want {
		t.Errorf("Edit = %s, want %s", got, want)
	}
}

func TestEdit_RefusesWhatIsNotAnObject(t *testing.T) {
	t.Parallel()
	for _, in := range []string{`[1]`, `"s"`, `{"a":`, ``} {
		if _, err := verbatim.Edit([]byte(in), nil); err == nil {
			t.Errorf("Edit(%q) = nil error, want one", in)
		}
	}
}

func TestField_IsTheMemberAsSent(t *testing.T) {
	t.Parallel()
	obj := []byte(`{"a":1, "s": {"z": 1, "a": [true, false]}}`)
	if got, want := string(verbatim.Field(obj, "s")), `{"z": 1, "a": [true, false]}`; got != want {
		t.Errorf("Field = %s, want %s", got, want)
	}
	if got := verbatim.Field(obj, "none"); got != nil {
		t.Errorf("Field of a missing key = %s, want nil", got)
	}
}

// Members splits any object as encoding/json's decoder reads it: strings
// holding brackets, quotes and escapes, nested values, white space.
func TestMembers_AsTheDecoderReadsThem(t *testing.T) {
	t.Parallel()
	for _, obj := range []string{
		`{}`, ` { } `,
		`{"a":1,"b":-2.5e3,"c":true,"d":null,"e":"s"}`,
		"{ \"a\" :\t[1, {\"x\": \"}]\"}],\n\"b\\\"q\": {\"y\": [[], {}]} , \"\\u00e9\":\"\\\\\"}",
		`{"k":"a\\\"}","l":{"m":"{"}}`,
	} {
		got, err := verbatim.Members([]byte(obj))
		if err != nil {
			t.Fatalf("Members(%s): %v", obj, err)
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal([]byte(obj), &want); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("Members(%s) = %d members, want %d", obj, len(got), len(want))
		}
		for _, m := range got {
			if w, ok := want[m.Key]; !ok || string(w) != string(m.Value) {
				t.Errorf("Members(%s): %q = %s, want %s", obj, m.Key, m.Value, w)
			}
		}
	}
}
