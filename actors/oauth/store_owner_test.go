package oauth_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/oauth"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// A token another user owns (they could have put their own account's
// token there), or in a directory another user owns or can write, is
// refused by Load and reported by List, naming the path and the fix. The
// other user is real: the file or directory is given to testkit.Stranger.
func TestStore_RefusesWhatAnotherUserControls(t *testing.T) {
	t.Parallel()
	other := testkit.Stranger(t)
	me := strconv.Itoa(os.Geteuid())
	rec := &oauth.Record{Server: "s", Resource: "https://rs.example/mcp", TokenURL: "https://as.example/token", ClientID: "c", AccessToken: "tok"}
	for what, setup := range map[string]func(dir, file string) string{
		"file owned by another user":      func(_, file string) string { other.Chown(t, file); return "chown " + me + " " + file },
		"directory owned by another user": func(dir, _ string) string { other.Chown(t, dir); return "chown " + me + " " + dir },
		"directory writable by its group": func(dir, _ string) string {
			if err := os.Chmod(dir, 0o770); err != nil {
				t.Fatal(err)
			}
			return "chmod 700 " + dir
		},
	} {
		store := oauth.Store{Dir: filepath.Join(t.TempDir(), "oauth")}
		if err := store.Save(rec); err != nil {
			t.Fatal(err)
		}
		files, _ := filepath.Glob(filepath.Join(store.Dir, "*.json"))
		if len(files) != 1 {
			t.Fatalf("%s: files %v, want one", what, files)
		}
		if _, err := store.Load(rec.Server, rec.Resource); err != nil {
			t.Fatalf("%s: the user's own token refused: %v", what, err)
		}
		fix := setup(store.Dir, files[0])
		_, err := store.Load(rec.Server, rec.Resource)
		if err == nil || errors.Is(err, oauth.ErrNoToken) || !strings.Contains(err.Error(), "run "+fix) {
			t.Errorf("%s: Load = %v, want a refusal saying %q", what, err, fix)
		}
		if recs, errs := store.List(); len(recs) != 0 || len(errs) != 1 || !strings.Contains(errs[0].Error(), fix) {
			t.Errorf("%s: List = %v, %v, want the refusal", what, recs, errs)
		}
	}
}

// A client registration that another user owns is not replayed: they
// could have written a client of theirs, whose redirects they control.
func TestStore_RefusesARegistrationAnotherUserOwns(t *testing.T) {
	t.Parallel()
	other := testkit.Stranger(t)
	store := oauth.Store{Dir: filepath.Join(t.TempDir(), "oauth")}
	reg := &oauth.Registration{Issuer: "https://as.example", RedirectURI: "http://127.0.0.1:1/callback",
		Request: []byte(`{}`), Response: []byte(`{"client_id": "c"}`)}
	if err := store.SaveRegistration(reg); err != nil {
		t.Fatal(err)
	}
	if got, err := store.LoadRegistration(reg.Issuer); err != nil || got == nil {
		t.Fatalf("the user's own registration: %v, %v", got, err)
	}
	files, _ := filepath.Glob(filepath.Join(store.Dir, "clients", "*"))
	if len(files) != 1 {
		t.Fatalf("registration files %v, want one", files)
	}
	other.Chown(t, files[0])
	got, err := store.LoadRegistration(reg.Issuer)
	if err == nil || !strings.Contains(err.Error(), "chown "+strconv.Itoa(os.Geteuid())) {
		t.Fatalf("LoadRegistration = %v, %v; want a refusal naming the fix", got, err)
	}
}
