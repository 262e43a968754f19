package swebenchcli

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/swebench"
	"github.com/swe-sweep/sweep-operator/internal/swebench/logparse"
	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

// ParseOptions of `sweep swebench parse --parser NAME LOG`.
type ParseOptions struct {
	Parser string
	// Grading, when set, reads as that version's official parser does.
	Grading string

	Log string
	clioptions.IOStreams
}

func (o *ParseOptions) Complete(streams clioptions.IOStreams, args []string) error {
	o.IOStreams, o.Log = streams, args[0]
	return nil
}

func (o *ParseOptions) Validate() error {
	if o.Parser == "" {
		return fmt.Errorf("flag --parser is required: one of %s", strings.Join(logparse.Names(), ", "))
	}
	return nil
}

func (o *ParseOptions) Run(context.Context) error {
	p, err := logparse.Get(o.Parser)
	if err != nil {
		return fmt.Errorf("flag --parser: %w", err)
	}
	parse := func(section string) (logparse.Statuses, error) { return p.Parse(section), nil }
	if o.Grading != "" {
		version, err := swebench.ParseGradingVersion(o.Grading)
		if err != nil {
			return fmt.Errorf("flag --grading: %w", err)
		}
		parse = func(section string) (logparse.Statuses, error) { return swebench.ParseAsVersion(p, section, version) }
	}
	log, release, err := readLog(o.Log)
	if err != nil {
		return fmt.Errorf("reading the log: %w", err)
	}
	defer release()
	// The parse map and its sorted copy stay live until the JSON is written, and little else is
	// allocated: a collection while they grow frees almost nothing. Collecting when the heap has
	// grown 8 times rather than once takes about a fifth of the CPU time of a large log's parse
	// away, at about the same peak memory (hack/swebench-goldens/speed.sh).
	defer debug.SetGCPercent(debug.SetGCPercent(800))
	statuses, err := parse(swebench.TestOutput(log))
	if err != nil {
		return err
	}
	return writeStatuses(o.Out, statuses)
}

// writeStatuses writes statuses as clioptions.WriteStructured does in JSON (keys sorted, two
// spaces of indent, no HTML escaping), the same bytes, without reflection: a large log has
// hundreds of thousands of tests. Only a key or status that JSON must escape goes through
// encoding/json.
func writeStatuses(w io.Writer, statuses logparse.Statuses) error {
	if len(statuses) == 0 {
		_, err := io.WriteString(w, "{}\n")
		return err
	}
	// Ids share long prefixes (the module path), and comparing two means reading both from
	// wherever the log put them. So each entry carries the 8 bytes after the prefix every id
	// shares, zero-padded, as a number: it orders most pairs without touching the ids. The
	// prefix is guessed from the first ids and checked while the heads are read, so that each id
	// is read once; a wrong guess costs a second pass.
	entries := make([]statusEntry, 0, len(statuses))
	for id, s := range statuses {
		entries = append(entries, statusEntry{id: id, status: s})
	}
	common := sharedPrefix(entries[:min(len(entries), 64)])
	for i := 0; i < len(entries); i++ {
		if !strings.HasPrefix(entries[i].id, common) {
			common = sharedPrefix(entries)
			i = -1 // read the heads again
			continue
		}
		entries[i].head = idHead(entries[i].id, len(common))
	}
	sortEntries(entries, len(common)+8)

	var escaped bytes.Buffer
	enc := json.NewEncoder(&escaped)
	enc.SetEscapeHTML(false)
	buf := make([]byte, 0, 1<<16)
	quote := func(s string) error {
		if !needsJSONEscape(s) {
			buf = append(append(append(buf, '"'), s...), '"')
			return nil
		}
		escaped.Reset()
		if err := enc.Encode(s); err != nil {
			return err
		}
		buf = append(buf, bytes.TrimSuffix(escaped.Bytes(), []byte("\n"))...)
		return nil
	}
	buf = append(buf, "{\n"...)
	for i, e := range entries {
		buf = append(buf, "  "...)
		if err := quote(e.id); err != nil {
			return err
		}
		buf = append(buf, ": "...)
		if err := quote(string(e.status)); err != nil {
			return err
		}
		if i < len(entries)-1 {
			buf = append(buf, ',')
		}
		buf = append(buf, '\n')
		if len(buf) >= 1<<16-1<<12 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	buf = append(buf, "}\n"...)
	_, err := w.Write(buf)
	return err
}

// sortEntries sorts entries by id: a radix sort on head, then each run of equal heads by the
// ids' bytes from next on (sortEqualHeads).
func sortEntries(entries []statusEntry, next int) {
	const digit = 16
	tmp := make([]statusEntry, len(entries))
	src, dst := entries, tmp
	var count [1 << digit]int
	for shift := 0; shift < 64; shift += digit {
		clear(count[:])
		for _, e := range src {
			count[(e.head>>shift)&(1<<digit-1)]++
		}
		if count[(src[0].head>>shift)&(1<<digit-1)] == len(src) {
			continue // every entry has this digit: the pass would change nothing
		}
		sum := 0
		for i, c := range count {
			count[i], sum = sum, sum+c
		}
		for _, e := range src {
			d := (e.head >> shift) & (1<<digit - 1)
			dst[count[d]] = e
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &entries[0] {
		copy(entries, src)
	}
	sortEqualHeads(entries, next)
}

// sortEqualHeads sorts each run of entries with equal heads, whose ids agree (zero-padded) up
// to offset: by their next 8 bytes, and so on, until the ids of a run end; a run of few entries,
// or of ids that end, is sorted by comparing the ids.
func sortEqualHeads(entries []statusEntry, offset int) {
	for start := 0; start < len(entries); {
		end := start + 1
		for end < len(entries) && entries[end].head == entries[start].head {
			end++
		}
		if run := entries[start:end]; len(run) > 1 {
			longer := false
			for _, e := range run {
				longer = longer || len(e.id) > offset
			}
			if len(run) < 16 || !longer {
				slices.SortFunc(run, func(a, b statusEntry) int { return strings.Compare(a.id, b.id) })
			} else {
				for i := range run {
					run[i].head = idHead(run[i].id, offset)
				}
				slices.SortFunc(run, func(a, b statusEntry) int { return cmp.Compare(a.head, b.head) })
				sortEqualHeads(run, offset+8)
			}
		}
		start = end
	}
}

// sharedPrefix is the longest prefix of every id of entries (not empty).
func sharedPrefix(entries []statusEntry) string {
	common := entries[0].id
	for _, e := range entries[1:] {
		for !strings.HasPrefix(e.id, common) {
			common = common[:len(common)-1]
		}
	}
	return common
}

// idHead is the 8 bytes of id from offset, zero-padded, as a number that orders as they do.
func idHead(id string, offset int) uint64 {
	var head [8]byte
	if offset < len(id) {
		copy(head[:], id[offset:])
	}
	return binary.BigEndian.Uint64(head[:])
}

type statusEntry struct {
	head   uint64 // the id's first bytes after the shared prefix, for sorting
	id     string
	status testresults.Status
}

// needsJSONEscape reports whether encoding/json writes s other than as its bytes in quotes:
// control bytes, quotes, backslashes, and any non-ASCII (invalid UTF-8 and U+2028/U+2029 are
// escaped; the rest would pass, but deciding that is encoding/json's business).
func needsJSONEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// GradeOptions of `sweep swebench grade --instance F --log LOG`.
type GradeOptions struct {
	// InstanceFile holds the instance, or several with ID choosing one.
	InstanceFile, ID string
	LogFile          string
	Grading          string
	// Parser, when set, overrides the instance's and repository's log parser.
	Parser string

	clioptions.IOStreams
	version swebench.GradingVersion
}

func (o *GradeOptions) Complete(streams clioptions.IOStreams, _ []string) error {
	o.IOStreams = streams
	return nil
}

func (o *GradeOptions) Validate() error {
	if o.InstanceFile == "" || o.LogFile == "" {
		return fmt.Errorf("flags --instance and --log are required: sweep swebench grade --instance F --log LOG")
	}
	var err error
	if o.version, err = swebench.ParseGradingVersion(o.Grading); err != nil {
		return fmt.Errorf("flag --grading: %w", err)
	}
	return nil
}

func (o *GradeOptions) Run(context.Context) error {
	inst, err := pickInstance(o.InstanceFile, o.ID)
	if err != nil {
		return err
	}
	log, err := os.ReadFile(o.LogFile)
	if err != nil {
		return fmt.Errorf("reading the log: %w", err)
	}
	rep, err := swebench.Grade(inst, string(log), o.version, swebench.GradeOptions{Parser: o.Parser})
	if err != nil {
		return err
	}
	if !rep.Completed() {
		return fmt.Errorf("instance %s is an error instance under grading %s, with no report.json: %s (log %s)", inst.InstanceID, o.version, rep.Error, o.LogFile)
	}
	return clioptions.WriteStructured(o.Out, clioptions.OutputJSON, rep)
}

// pickInstance reads the one instance of file, or the one named id.
func pickInstance(file, id string) (swebench.Instance, error) {
	insts, err := swebench.LoadInstances(file)
	if err != nil {
		return swebench.Instance{}, err
	}
	if id == "" {
		if len(insts) != 1 {
			return swebench.Instance{}, fmt.Errorf("%s holds %d instances: choose one with --id", file, len(insts))
		}
		return insts[0], nil
	}
	for _, inst := range insts {
		if inst.InstanceID == id {
			return inst, nil
		}
	}
	return swebench.Instance{}, fmt.Errorf("%s has no instance %q: check --id", file, id)
}
