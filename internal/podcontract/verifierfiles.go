package podcontract

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// The verifier stage sends every file below VerifierLogDir: the declared outputs
// (test-stdout.txt, reward.json, eval.json, a grader's own outputs) under their names, as
// listed in the summary, and every other file as a record named by VerifierFileRecord. The
// manifest record RecordVerifierFiles lists them all, with what became of each; the summary
// lists the manifest, and the records it names that the summary does not follow it on the
// stream, checked against the manifest's size and sha256. So the summary stays within a
// termination message however many files there are.
//
// Names the collector reserves start with "_" and a letter that is no hex digit, which the
// file naming never produces: RecordVerifierFiles here, the controller's keys of the results
// Secrets (internal/podbuild).
const RecordVerifierFiles = "_verifier-files.json"

// Bounds of the verifier's files.
const (
	// MaxVerifierEntries is how many entries (files and directories) below VerifierLogDir the
	// collector looks at; the manifest says when there were more.
	MaxVerifierEntries = 1000
	// MaxVerifierManifestBytes bounds the manifest: the collector stops listing before it.
	MaxVerifierManifestBytes = 512 << 10
	// maxFileRecordName leaves room in a Secret key for the controller's prefix of a piece.
	maxFileRecordName = 200
)

// VerifierFiles is the manifest: every entry the collector found below VerifierLogDir.
type VerifierFiles struct {
	Files []VerifierFile `json:"files"`
	// Incomplete says that there are entries the collector did not list: it stopped at
	// MaxVerifierEntries, or before the manifest passed MaxVerifierManifestBytes.
	Incomplete bool `json:"incomplete,omitempty"`
}

// VerifierFile is one entry: its path below VerifierLogDir (slash-separated) and the output
// it became. Output.Name is its record; an output that is Missing (refused, unreadable, or
// gone when read) or TooLarge was not sent.
type VerifierFile struct {
	Path string `json:"path"`
	Output
}

// Kept says the file's bytes travel as the record Output.Name.
func (f VerifierFile) Kept() bool { return !f.Missing && !f.TooLarge }

// NotKept says why a file was not kept, for a user.
func (f VerifierFile) NotKept() string {
	switch {
	case f.Refused != "":
		return f.Refused
	case f.TooLarge:
		return fmt.Sprintf("%d bytes, more than the collector could send", f.OriginalSize)
	case f.Missing:
		return "not readable when collected"
	}
	return ""
}

// VerifierFileRecord is the record name of the verifier's file at rel (slash-separated, below
// VerifierLogDir). A top-level name of letters, digits, '.' and '-' is its own record name, so
// that the declared outputs (reward.json, eval.json, ...) keep theirs; any other byte, '_' and '/' among them, becomes '_'
// and two lower-case hex digits, which no two paths share (so does a leading '.' before
// another, as a Secret key may not start with ".."). A name too long for a Secret key
// becomes "_sha256-" and the hex sha256 of rel. Both forms are valid record names.
func VerifierFileRecord(rel string) string {
	var b strings.Builder
	for i := 0; i < len(rel); i++ {
		c := rel[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "_%02x", c)
		}
	}
	name := b.String()
	if strings.HasPrefix(name, "..") {
		// A Secret key may not start with "..": the first '.' is escaped too.
		name = "_2e" + name[1:]
	}
	if len(name) > maxFileRecordName || !ValidRecordName(name) {
		sum := sha256.Sum256([]byte(rel))
		return "_sha256-" + hex.EncodeToString(sum[:])
	}
	return name
}

// ValidVerifierPath reports why rel cannot name a file below VerifierLogDir, or "": it must be
// relative, slash-separated without empty, "." or ".." components, and valid UTF-8 (the
// manifest is JSON, which would change other bytes).
func ValidVerifierPath(rel string) string {
	if !utf8.ValidString(rel) || strings.ContainsRune(rel, 0) {
		return "its name is not valid UTF-8 text"
	}
	if rel == "" || strings.HasPrefix(rel, "/") {
		return "not a relative path"
	}
	for _, c := range strings.Split(rel, "/") {
		if c == "" || c == "." || c == ".." {
			return "not a plain relative path (an empty, . or .. component)"
		}
	}
	return ""
}

// EncodeVerifierFiles marshals the manifest.
func EncodeVerifierFiles(m VerifierFiles) ([]byte, error) { return json.Marshal(m) }

// DecodeVerifierFiles parses and checks a manifest: every kept file has a valid path, listed
// once, under the record VerifierFileRecord names, with a size and a sha256. (A file not kept
// may have a path that is not valid text: the manifest shows it quoted.)
func DecodeVerifierFiles(b []byte) (VerifierFiles, error) {
	var m VerifierFiles
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: %w", RecordVerifierFiles, err)
	}
	kept := map[string]bool{}
	for _, f := range m.Files {
		if !f.Kept() {
			continue
		}
		if why := ValidVerifierPath(f.Path); why != "" {
			return m, fmt.Errorf("%s: path %q: %s", RecordVerifierFiles, f.Path, why)
		}
		if kept[f.Path] || f.Name != VerifierFileRecord(f.Path) {
			return m, fmt.Errorf("%s: path %q has record %q, want %q once", RecordVerifierFiles, f.Path, f.Name, VerifierFileRecord(f.Path))
		}
		kept[f.Path] = true
		if b, err := hex.DecodeString(f.SHA256); err != nil || len(b) != sha256.Size || f.Size < 0 {
			return m, fmt.Errorf("%s: path %q has an invalid size or sha256", RecordVerifierFiles, f.Path)
		}
	}
	return m, nil
}
