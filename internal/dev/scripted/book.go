// Package scripted is the scripted model every host suite talks to, once:
// one server on loopback (Server) whose requests are decoded by a wire
// format (Wire: Messages for Claude Code, Responses for Codex CLI, Chat
// for OpenCode, Copilot CLI, Pi and Droid, Gemini for Gemini CLI) into one
// transcript, answered by replaying the conversation's script over it
// (Turns); the scripts by conversation, every request in the order it
// came, and the scripts' failures (Book); and a host CLI's session
// process (RunCLI).
package scripted

import "sync"

// Book holds a server's scripts (S, by the first prompt of the
// conversation each one plays) and its requests (R, recorded as they
// come), and the failures of its scripts. The zero Book is ready.
type Book[S, R any] struct {
	mu       sync.Mutex
	scripts  map[string]S
	requests []*R
	failures []string
	failed   chan struct{} // closed at the first failure
}

// init makes the failed channel, under b.mu.
func (b *Book[S, R]) init() {
	if b.failed == nil {
		b.failed = make(chan struct{})
	}
}

// Handle makes script the agent of the conversation whose first prompt is
// prompt, replacing any script it had.
func (b *Book[S, R]) Handle(prompt string, script S) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.scripts == nil {
		b.scripts = map[string]S{}
	}
	b.scripts[prompt] = script
}

// Script is the script of the conversation whose first prompt is prompt.
func (b *Book[S, R]) Script(prompt string) (S, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s, ok := b.scripts[prompt]
	return s, ok
}

// Record adds a request and returns its number, 1 for the first.
func (b *Book[S, R]) Record(r *R) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.requests = append(b.requests, r)
	return len(b.requests)
}

// Locked runs f under the book's lock: the way to change a recorded
// request (its answer) while Requests may be copying it.
func (b *Book[S, R]) Locked(f func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	f()
}

// Requests returns a copy of every request so far, in the order they came.
func (b *Book[S, R]) Requests() []R {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]R, len(b.requests))
	for i, r := range b.requests {
		out[i] = *r
	}
	return out
}

// Fail records why a script failed: a script that called Failf, a
// transcript that no longer matches its script, a panic.
func (b *Book[S, R]) Fail(msg string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.init()
	if len(b.failures) == 0 {
		close(b.failed)
	}
	b.failures = append(b.failures, msg)
}

// Failures returns every failure so far.
func (b *Book[S, R]) Failures() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.failures...)
}

// Failed is closed at the first failure, so a session can stop at once
// instead of running into its timeout.
func (b *Book[S, R]) Failed() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.init()
	return b.failed
}

// Clip is s cut to n runes, "…" marking a cut: a prompt or an answer in a
// failure's message.
func Clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
