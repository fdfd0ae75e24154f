package config

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpvisor/mcpvisor/messages"
)

// serverFields is the single source of what a spec field means: every
// field of messages.ServerSpec has exactly one row, and every row names a
// field. Adding a field without a row fails here.
func TestServerFields_CoverEverySpecField(t *testing.T) {
	t.Parallel()
	if len(serverFields) > maxFields {
		t.Fatalf("%d rows, more than maxFields (%d): raise it", len(serverFields), maxFields)
	}
	rows := map[string]int{}
	keys := map[string]bool{}
	for _, f := range serverFields {
		rows[f.spec]++
		if f.key != "" {
			if keys[f.key] {
				t.Errorf("key %q has two rows", f.key)
			}
			keys[f.key] = true
		}
		switch {
		case f.equal == nil:
			t.Errorf("%s: no equal", f.spec)
		case (f.hash != nil) != (f.effect == EffectRestart):
			t.Errorf("%s: effect %s, hash set %v: exactly the Restart fields are hashed", f.spec, f.effect, f.hash != nil)
		case (f.parse != nil) != (f.key != "" && f.key != fieldType):
			t.Errorf("%s: key %q, parse set %v: every key but type has a parse", f.spec, f.key, f.parse != nil)
		case (f.key == "") != (f.effect == EffectIdentity):
			t.Errorf("%s: key %q, effect %s: exactly the derived fields are identity", f.spec, f.key, f.effect)
		case f.reads == 0 && f.key != "":
			t.Errorf("%s: no transport reads it", f.spec)
		case (f.preview != nil) != (f.key != ""):
			t.Errorf("%s: key %q, preview set %v: every key an entry can set, and only those, has a preview for mcpvisor trust", f.spec, f.key, f.preview != nil)
		}
	}
	typ := reflect.TypeFor[messages.ServerSpec]()
	for i := range typ.NumField() {
		name := typ.Field(i).Name
		if rows[name] != 1 {
			t.Errorf("ServerSpec.%s has %d rows in serverFields, want 1", name, rows[name])
		}
		delete(rows, name)
	}
	for name := range rows {
		t.Errorf("row for %s names no ServerSpec field", name)
	}
}

// Fingerprint, ChangedFields, LiveChanges, SecretsOf and SameDesired all
// follow the table: changing one field alone changes the fingerprint
// exactly when its effect is EffectRestart, is a live change exactly when
// it is EffectLive, and shows in the secrets exactly when the row has
// secrets.
func TestServerFields_DriveFingerprintLiveAndSecrets(t *testing.T) {
	t.Parallel()
	base := messages.ServerSpec{
		Name: "s", Transport: messages.TransportStdio, Command: "npx", Args: []string{"-y", "srv"},
		Env: map[string]string{"A": "1"}, Source: messages.Position{Path: "/a.json", Line: 1, Column: 1},
	}
	base.Fingerprint = Fingerprint(base)
	for _, f := range serverFields {
		t.Run(f.spec, func(t *testing.T) {
			t.Parallel()
			changed := base
			changed.Args = slices.Clone(base.Args)
			sample := "sample-" + strings.ToLower(f.spec)
			setSample(t, reflect.ValueOf(&changed).Elem().FieldByName(f.spec), sample)

			if got := Fingerprint(changed) != base.Fingerprint; got != (f.effect == EffectRestart) {
				t.Errorf("fingerprint changed: %v, want %v (effect %s)", got, !got, f.effect)
			}
			if got := slices.Contains(ChangedFields(base, changed), f.key); got != (f.effect == EffectRestart) {
				t.Errorf("in ChangedFields: %v, want %v", got, !got)
			}
			if got := slices.Contains(LiveChanges(base, changed), f.key); got != (f.effect == EffectLive) {
				t.Errorf("in LiveChanges: %v, want %v", got, !got)
			}
			secret := slices.ContainsFunc(SecretsOf(changed), func(s string) bool { return strings.Contains(s, sample) })
			if secret != (f.secrets != nil) {
				t.Errorf("sample value listed as a secret: %v, want %v", secret, !secret)
			}
			if sameSpec(base, changed) {
				t.Error("SameDesired misses the change")
			}
		})
	}
	moved := base
	moved.Source.Line, moved.Source.Column = 9, 9
	if !sameSpec(base, moved) || Fingerprint(moved) != base.Fingerprint {
		t.Error("a moved declaration counts as a change")
	}
}

// setSample gives a spec field a value unlike its zero value and unlike
// base's, built around sample: a credential-shaped value where the type
// can hold one, so that the secrets check is meaningful.
func setSample(t *testing.T, v reflect.Value, sample string) {
	t.Helper()
	switch v.Interface().(type) {
	case string:
		v.SetString("https://h.example/" + sample + "?k=" + sample)
	case messages.Transport:
		v.Set(reflect.ValueOf(messages.TransportSSE))
	case messages.RestartPolicy:
		v.Set(reflect.ValueOf(messages.RestartNever))
	case messages.Autostart:
		v.Set(reflect.ValueOf(messages.AutostartLazy))
	case []string:
		v.Set(reflect.ValueOf([]string{"--api-key", sample}))
	case map[string]string:
		v.Set(reflect.ValueOf(map[string]string{"K": sample}))
	case bool:
		v.SetBool(true)
	case time.Duration:
		v.Set(reflect.ValueOf(7 * time.Second))
	case *string:
		v.Set(reflect.ValueOf(&sample))
	case *messages.EnvPolicy:
		v.Set(reflect.ValueOf(&messages.EnvPolicy{Allow: []string{sample}}))
	case *messages.OAuthSpec:
		v.Set(reflect.ValueOf(&messages.OAuthSpec{ClientID: "id", ClientSecret: sample}))
	case messages.Position:
		v.Set(reflect.ValueOf(messages.Position{Path: "/" + sample, Line: 1, Column: 1}))
	default:
		t.Fatalf("no sample for a field of type %s: teach setSample", v.Type())
	}
}

// Every key of the table is documented in docs/config.md.
func TestServerFields_Documented(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/config.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ServerFields() {
		if f.Key != "" && !strings.Contains(string(doc), "`"+f.Key+"`") {
			t.Errorf("docs/config.md does not mention `%s`", f.Key)
		}
	}
}

// previewSamples are, for TestServerFields_EveryKeyShowsInThePreview, a
// value of each entry key and what its preview line must show; a new key
// needs one.
var previewSamples = map[string]struct{ value, shows string }{
	fieldType:           {`"bogus-type"`, `"bogus-type"`},
	fieldCommand:        {`"sample-cmd"`, `"sample-cmd"`},
	fieldArgs:           {`["sample-arg"]`, `"sample-arg"`},
	fieldEnv:            {`{"SAMPLE": "sample-env"}`, `SAMPLE="sample-env"`},
	fieldCwd:            {`"sample-cwd"`, `"sample-cwd"`},
	fieldURL:            {`"https://sample.example"`, `"https://sample.example"`},
	fieldHeaders:        {`{"X-Sample": "sample-header"}`, `X-Sample: "sample-header"`},
	fieldDisabled:       {`true`, `true`},
	fieldConnectTimeout: {`"17s"`, `"17s"`},
	fieldCallTimeout:    {`"18s"`, `"18s"`},
	fieldRestart:        {`"sample-restart"`, `"sample-restart"`},
	fieldAutostart:      {`"sample-autostart"`, `"sample-autostart"`},
	fieldIdleTimeout:    {`"19s"`, `"19s"`},
	fieldAllowTools:     {`["sample-allow"]`, `["sample-allow"]`},
	fieldDenyTools:      {`["sample-deny"]`, `["sample-deny"]`},
	fieldInheritEnv:     {`["SAMPLE_INHERIT"]`, `["SAMPLE_INHERIT"]`},
	fieldResetOnProg:    {`true`, `true`},
	fieldRoots:          {`["sample-root"]`, `["sample-root"]`},
	fieldOAuth:          {`{"clientId": "sample-client"}`, `clientId "sample-client"`},
	fieldEnvFile:        {`"sample.env"`, `reads "sample.env"`},
	fieldHeadersHelper:  {`"sample-helper"`, `runs: /bin/sh -c "sample-helper"`},
	fieldPrefix:         {`"sample-prefix"`, `"sample-prefix"`},
	fieldUnsolicited:    {`true`, `true`},
}

// The trust preview is complete by construction: an entry that sets any
// key of the table shows it, whatever the key, on a line that names it,
// with the value as written.
func TestServerFields_EveryKeyShowsInThePreview(t *testing.T) {
	t.Parallel()
	for _, f := range serverFields {
		if f.key == "" {
			continue
		}
		sample, ok := previewSamples[f.key]
		if !ok {
			t.Errorf("no preview sample for %q: add one to previewSamples", f.key)
			continue
		}
		data := `{"mcpServers": {"s": {"` + f.key + `": ` + sample.value + `}}}`
		got, ok := PreviewEntries("/p/.mcp.json", []byte(data), PreviewOptions{})
		if !ok || len(got) != 1 {
			t.Fatalf("%s: no preview", data)
		}
		shown := false
		for _, l := range got[0].Lines {
			shown = shown || slices.Contains(l.Fields, f.key) && strings.Contains(l.Text, sample.shows)
		}
		if !shown {
			t.Errorf("%s: the preview has no line of %s showing %s:\n%+v", data, f.key, sample.shows, got[0].Lines)
		}
	}
}
