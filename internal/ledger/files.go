package ledger

import "strings"

// fileIndex is the workspace's listing, read once for every unit: its
// names, and its packages and reviews by the short forms of their range's
// ends. Finding a unit's package is then a few map lookups, whatever the
// number of files, where matching every name against every review head
// made a long run's Look take seconds.
type fileIndex struct {
	names map[string]bool
	// byRange maps "<a>..<b>.diff" (or .md), a and b short shas as git
	// wrote them, to the file's name; lengths are the (len a, len b) pairs
	// that occur, for lookups by full shas.
	byRange map[string]string
	lengths [][2]int
}

func indexFiles(names []string) *fileIndex {
	x := &fileIndex{names: make(map[string]bool, len(names)), byRange: map[string]string{}}
	seen := map[[2]int]bool{}
	for _, n := range names {
		x.names[n] = true
		a, b, ext, ok := reviewRange(n)
		if !ok {
			continue
		}
		key := a + ".." + b + ext
		if old, dup := x.byRange[key]; !dup || n < old {
			x.byRange[key] = n
		}
		if l := [2]int{len(a), len(b)}; !seen[l] {
			seen[l] = true
			x.lengths = append(x.lengths, l)
		}
	}
	return x
}

func (x *fileIndex) has(name string) bool { return x.names[name] }

// find is the file of the range from..to (full shas) with extension ext,
// "" if none.
func (x *fileIndex) find(from, to, ext string) string {
	for _, l := range x.lengths {
		if l[0] > len(from) || l[1] > len(to) {
			continue
		}
		if n, ok := x.byRange[from[:l[0]]+".."+to[:l[1]]+ext]; ok {
			return n
		}
	}
	return ""
}

// reviewRange reads review-<a>..<b>.diff or .md: a and b 4 to 40 hex
// digits.
func reviewRange(name string) (a, b, ext string, ok bool) {
	rest, found := strings.CutPrefix(name, "review-")
	if !found {
		return "", "", "", false
	}
	switch {
	case strings.HasSuffix(rest, ".diff"):
		ext = ".diff"
	case strings.HasSuffix(rest, ".md"):
		ext = ".md"
	default:
		return "", "", "", false
	}
	a, b, found = strings.Cut(strings.TrimSuffix(rest, ext), "..")
	if !found || !shortSha(a) || !shortSha(b) {
		return "", "", "", false
	}
	return a, b, ext, true
}

func shortSha(s string) bool {
	if len(s) < 4 || len(s) > 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// IsReviewOf says whether name is a review file of the range from..to
// (review-<a>..<b>.md, <a> and <b> any short forms of its ends).
func IsReviewOf(name, from, to string) bool {
	a, b, ext, ok := reviewRange(name)
	return ok && ext == ".md" && strings.HasPrefix(from, a) && strings.HasPrefix(to, b)
}
