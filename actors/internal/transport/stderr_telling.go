package transport

import "strings"

// tellingWords rank what a stderr line says, most telling first. A server
// that fails to start often ends with a summary that names nothing
// ("Invalid configuration", "Node.js v22.1.0") after the line that says
// what is wrong and how to fix it ("A Brave API key is required via
// --brave-api-key, BRAVE_API_KEY…"). The first rank names what is
// missing or refused; the second only that something failed; the third is
// the usage text a program prints when it was called wrongly. Words are
// matched case-insensitively anywhere in the line.
var tellingWords = [][]string{
	{
		"required", "missing", "not set", "not found", "no such file", "cannot find", "can't find",
		"could not find", "no module named", "not defined", "denied", "unauthorized", "forbidden",
		"unknown option", "unknown flag", "unknown argument", "unrecognized",
	},
	{
		"error", "fatal", "panic", "exception", "invalid", "failed", "failure", "cannot", "can't",
		"could not", "unable", "refused", "not allowed",
	},
	{"usage"},
}

// tellingLine is the stderr line most likely to say why the server
// failed: the last line of the highest rank of tellingWords, else the
// last line, else "". Stack frames are passed over: a frame's file or
// function name ("at handleError (/app/error.js:3:9)") says nothing.
func tellingLine(tail []string) string {
	best, bestRank := "", len(tellingWords)
	for i := len(tail) - 1; i >= 0 && bestRank > 0; i-- {
		if r := rank(tail[i]); r < bestRank {
			best, bestRank = tail[i], r
		}
	}
	if best != "" {
		return best
	}
	for i := len(tail) - 1; i >= 0; i-- {
		if strings.TrimSpace(tail[i]) != "" {
			return tail[i]
		}
	}
	return ""
}

// rank is the rank of the first tellingWords group with a word in line,
// len(tellingWords) for none or for a stack frame.
func rank(line string) int {
	if stackFrame(line) {
		return len(tellingWords)
	}
	lower := strings.ToLower(line)
	for r, words := range tellingWords {
		for _, w := range words {
			if strings.Contains(lower, w) {
				return r
			}
		}
	}
	return len(tellingWords)
}

// stackFrame reports whether line is an indented frame of a stack trace:
// JavaScript's and Java's "    at f (file:1:2)", Python's `  File "x.py",
// line 3`, Go's "\t/path/file.go:12 +0x1d".
func stackFrame(line string) bool {
	trimmed := strings.TrimLeft(line, " \t")
	if trimmed == line {
		return false
	}
	return strings.HasPrefix(trimmed, "at ") || strings.HasPrefix(trimmed, `File "`) || strings.HasPrefix(trimmed, "/")
}
