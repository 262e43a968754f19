package swesweep

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
)

// PatchStats describes a git patch.
type PatchStats struct {
	Files     []FileChange `json:"files"`
	Additions int          `json:"additions"`
	Deletions int          `json:"deletions"`
}

// FileChange is one file of a patch. OldPath is empty for an added file, NewPath for a
// deleted one.
type FileChange struct {
	OldPath string `json:"old_path,omitempty"`
	NewPath string `json:"new_path,omitempty"`
	Binary  bool   `json:"binary,omitempty"`
}

// Paths returns every path the patch touches, old and new, without repeats.
func (s PatchStats) Paths() []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range s.Files {
		for _, p := range []string{f.OldPath, f.NewPath} {
			if p != "" && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// ParsePatch reads the file list and line counts of a git diff. Paths come from the
// "---"/"+++", "rename" and "new/deleted file" headers, which git quotes C-style when a name
// has unusual characters; the "diff --git" line is used only for files without them (binary
// files, mode changes).
func ParsePatch(patch []byte) PatchStats {
	var s PatchStats
	var cur *FileChange
	var added, deleted bool
	flush := func() {
		if cur == nil {
			return
		}
		if added {
			cur.OldPath = ""
		}
		if deleted {
			cur.NewPath = ""
		}
		s.Files = append(s.Files, *cur)
		cur = nil
	}
	sc := bufio.NewScanner(bytes.NewReader(patch))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	inHunk := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "diff --git "):
			flush()
			old, nw := splitDiffGitLine(strings.TrimPrefix(line, "diff --git "))
			cur = &FileChange{OldPath: old, NewPath: nw}
			added, deleted, inHunk = false, false, false
		case cur == nil:
		case strings.HasPrefix(line, "@@"):
			inHunk = true
		case inHunk && strings.HasPrefix(line, "+"):
			s.Additions++
		case inHunk && strings.HasPrefix(line, "-"):
			s.Deletions++
		case inHunk:
		case strings.HasPrefix(line, "new file mode"):
			added = true
		case strings.HasPrefix(line, "deleted file mode"):
			deleted = true
		case strings.HasPrefix(line, "rename from "):
			cur.OldPath = unquote(strings.TrimPrefix(line, "rename from "))
		case strings.HasPrefix(line, "rename to "):
			cur.NewPath = unquote(strings.TrimPrefix(line, "rename to "))
		case strings.HasPrefix(line, "--- "):
			if p := stripPrefix(unquote(strings.TrimPrefix(line, "--- ")), "a/"); p != "/dev/null" {
				cur.OldPath = p
			}
		case strings.HasPrefix(line, "+++ "):
			if p := stripPrefix(unquote(strings.TrimPrefix(line, "+++ ")), "b/"); p != "/dev/null" {
				cur.NewPath = p
			}
		case strings.HasPrefix(line, "GIT binary patch"), strings.HasPrefix(line, "Binary files "):
			cur.Binary = true
		}
	}
	flush()
	return s
}

// splitDiffGitLine splits "a/x b/x" (names possibly quoted). Unquoted names with spaces are
// ambiguous; git makes both names equal then, so the line is cut in the middle.
func splitDiffGitLine(rest string) (string, string) {
	if strings.HasPrefix(rest, `"`) {
		if end := closingQuote(rest); end > 0 {
			return stripPrefix(unquote(rest[:end+1]), "a/"), stripPrefix(unquote(strings.TrimSpace(rest[end+1:])), "b/")
		}
	}
	if i := strings.Index(rest, ` "b/`); i >= 0 {
		return stripPrefix(rest[:i], "a/"), stripPrefix(unquote(rest[i+1:]), "b/")
	}
	if len(rest)%2 == 1 {
		half := len(rest) / 2
		if rest[half] == ' ' && rest[2:half] == rest[half+3:] {
			return stripPrefix(rest[:half], "a/"), stripPrefix(rest[half+1:], "b/")
		}
	}
	if i := strings.Index(rest, " b/"); i >= 0 {
		return stripPrefix(rest[:i], "a/"), stripPrefix(rest[i+1:], "b/")
	}
	return rest, rest
}

func closingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// unquote undoes git's C-style quoting of a path; a trailing tab (git adds one after names
// with spaces in ---/+++ lines) is dropped.
func unquote(p string) string {
	p = strings.TrimSuffix(p, "\t")
	if len(p) >= 2 && p[0] == '"' && p[len(p)-1] == '"' {
		if u, err := strconv.Unquote(p); err == nil {
			return u
		}
	}
	return p
}

func stripPrefix(p, prefix string) string { return strings.TrimPrefix(p, prefix) }
