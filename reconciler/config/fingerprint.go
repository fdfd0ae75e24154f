package config

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"slices"

	"github.com/mcpvisor/mcpvisor/messages"
)

// fingerprintVersion starts every hashed encoding. Changing the encoding
// changes every fingerprint, which restarts every server once after an
// upgrade; bump the version when that is intended.
const fingerprintVersion = "mcpvisor/fingerprint/v1"

// Fingerprint returns a stable hash of the fields that shape a live
// session (those whose effect is EffectRestart in serverFields: transport,
// command, args, env, cwd, url, headers and inheritEnv), all as expanded.
// Two specs with the same fingerprint can share one session, so a changed
// value behind ${VAR} changes the fingerprint (the session must restart to
// see it), while a changed call timeout, tool filter, restart policy,
// connect timeout, disabled flag, name or source position does not (they
// apply without a restart).
//
// The encoding is canonical: maps are hashed in key order and every string
// is length-prefixed, so key order and formatting in the file do not matter
// and no two different specs encode alike ("a","bc" is not "ab","c"). An
// empty list or map hashes like an absent one. The result is the first 128
// bits of SHA-256, in hex (32 characters).
func Fingerprint(spec messages.ServerSpec) string {
	var stack [512]byte
	b := stack[:0]
	b = appendString(b, fingerprintVersion)
	for i := range serverFields {
		if h := serverFields[i].hash; h != nil {
			b = h(b, &spec)
		}
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// appendString appends s, length-prefixed.
func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendMap appends m's entries in key order, count-prefixed.
func appendMap(b []byte, m map[string]string) []byte {
	b = binary.AppendUvarint(b, uint64(len(m)))
	var stack [16]string
	keys := stack[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b = appendString(b, k)
		b = appendString(b, m[k])
	}
	return b
}

// appendList appends a count-prefixed list of strings.
func appendList(b []byte, list []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(list)))
	for _, s := range list {
		b = appendString(b, s)
	}
	return b
}
