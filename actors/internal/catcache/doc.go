// Package catcache is the catalog cache on disk: each server's last live catalog (tools,
// prompts, resources, resource templates: names, descriptions, schemas,
// annotations, URIs, as the server listed them) in one JSON file per
// server, so that the next start can list a server before it is up. It
// holds nothing of the config: no command, env, headers or URL; only the
// server's name, the config file that declares it and a hash of its
// fingerprint, which is what a cached catalog must match to be shown.
//
// The directory is read once, by Open (in Supervisor Start, on its
// caller's goroutine). Writes and removals go to one
// writer goroutine, newest per file (a burst of re-lists costs one
// write), each written to a temporary file and renamed over the entry
// (0600 in a 0700 directory), so a reader never sees half an entry. An
// entry past MaxEntryBytes is not written (and the old one is
// removed: the cache holds the last catalog or none), and the oldest
// entries go once all of them pass MaxTotalBytes. A file that
// cannot be read, is not JSON, is of another version or lies about the
// server it is for is ignored with a warning.
//
// The cache trusts only its owner: a directory another user owns or can
// write is neither read nor written (a warning names it and the fix),
// an entry file another user owns is ignored, and every entry is sealed
// with an HMAC under a random key only the user can read (seal.go), so
// an entry nobody sealed with that key is ignored however well it is
// named and keyed.
//
// Which entry is shown for which server, when a live catalog replaces
// it, and when an entry is written or dropped are the fleet's rules
// (reconciler/fleet_cache.go): this package only reads, writes and
// removes files.
//
// # Goroutines and who stops them
//
// Run is the one writer goroutine; the Supervisor starts it (counted in
// its WaitGroup) and Close ends it once it wrote what was pending. Store
// and Remove only queue, under a mutex, from the fleet actor's goroutine.
package catcache
