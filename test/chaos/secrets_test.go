package chaos_test

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
)

// secretScan knows every secret the run planted (env values, expanded
// variables, headers, URL password, path and query, a bearer token in
// args) and checks every text the run sees mcpvisor produce: log lines,
// events, errors, status and tool lists, resync plans and outcomes. A secret is registered before it
// is first written to a config file, so any text containing it came after.
type secretScan struct {
	mu      sync.Mutex
	secrets map[string]string // value → what it is
	scanned map[string]int    // kind of text → how many were checked
	leaks   []string          // the first few, described
	nLeaks  int
}

// secretPrefix starts every planted secret.
const secretPrefix = "zqS3cr3t"

func newSecretScan() *secretScan {
	return &secretScan{secrets: map[string]string{}, scanned: map[string]int{}}
}

// newSecret makes a secret that cannot occur by chance and registers it.
// It uses only letters and digits, so it looks the same quoted, escaped or
// in a URL.
func (s *secretScan) newSecret(rng *rand.Rand, what string) string {
	v := fmt.Sprintf("%s%016x", secretPrefix, rng.Uint64())
	s.add(what, v)
	return v
}

func (s *secretScan) add(what, value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.secrets[value] = what
}

// check scans one text; kind groups texts for the summary, where says
// which text it was.
func (s *secretScan) check(kind, where, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scanned[kind]++
	// Every secret starts with secretPrefix, so any occurrence of it is a
	// secret, whole or in part (cut by a truncation), in the clear.
	for off := 0; ; {
		i := strings.Index(text[off:], secretPrefix)
		if i < 0 {
			return
		}
		i += off
		off = i + len(secretPrefix)
		what := "part of a secret"
		for v, w := range s.secrets {
			if strings.HasPrefix(text[i:], v) {
				what = w + " " + v
				break
			}
		}
		s.nLeaks++
		if len(s.leaks) < 10 {
			from, to := max(0, i-200), min(len(text), i+240)
			s.leaks = append(s.leaks, fmt.Sprintf("%s appears in %s: %s … %s…", what, where, text[:min(len(text), 160, from)], text[from:to]))
		}
	}
}

// summary lists how many texts of each kind were scanned.
func (s *secretScan) summary() (secrets int, scanned []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, n := range s.scanned {
		scanned = append(scanned, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(scanned)
	return len(s.secrets), scanned
}
