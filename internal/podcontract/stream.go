package podcontract

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strconv"
	"strings"
)

// The collector's stdout is a container log, which the runtime stores line by line and may
// interleave with stderr, so the stream is text: one frame per line,
//
//	SWEEP1 <crc32> <streamID> <seq> R <name> <size> <sha256>   a record begins
//	SWEEP1 <crc32> <streamID> <seq> D <base64 of gzip bytes>   a piece of the record's gzip data
//	SWEEP1 <crc32> <streamID> <seq> E <records>                the stream ends
//
// crc32 (IEEE, hex) covers the rest of the line after it; seq counts frames from 0. Lines
// without the prefix are ignored: a lost or damaged frame shows up as a sequence gap, a frame
// of another stream by its ID, a replayed one by its sequence number, a damaged record by its
// size or sha256, and a cut stream by the missing end frame.
const (
	framePrefix = "SWEEP1 "
	// chunkBytes of gzip data per D frame keep lines under the runtime's 16 KiB log line
	// split; longer lines would still be joined again, but need not be.
	chunkBytes = 8 << 10
	maxLine    = 16 << 10
)

// Record is one named output to stream.
type Record struct {
	Name string
	Data []byte
}

// EncodeStream writes records as the framed stream identified by streamID.
func EncodeStream(w io.Writer, streamID string, records []Record) error {
	if !ValidRecordName(streamID) {
		return fmt.Errorf("invalid stream id %q", streamID)
	}
	bw := bufio.NewWriter(w)
	seq := 0
	frame := func(body string) {
		body = streamID + " " + strconv.Itoa(seq) + " " + body
		fmt.Fprintf(bw, "%s%08x %s\n", framePrefix, crc32.ChecksumIEEE([]byte(body)), body)
		seq++
	}
	for _, r := range records {
		if !ValidRecordName(r.Name) {
			return fmt.Errorf("invalid record name %q", r.Name)
		}
		sum := sha256.Sum256(r.Data)
		frame(fmt.Sprintf("R %s %d %s", r.Name, len(r.Data), hex.EncodeToString(sum[:])))
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		if _, err := zw.Write(r.Data); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		for b := gz.Bytes(); len(b) > 0; {
			n := min(len(b), chunkBytes)
			frame("D " + base64.StdEncoding.EncodeToString(b[:n]))
			b = b[n:]
		}
	}
	frame("E " + strconv.Itoa(len(records)))
	return bw.Flush()
}

// StreamedOutputs are the outputs of s that travel on the stream, in stream order; after them
// come the verifier's files its manifest lists (RecordVerifierFiles).
func (s Summary) StreamedOutputs() []Output {
	var out []Output
	for _, o := range s.Outputs {
		if !o.Missing && !o.TooLarge {
			out = append(out, o)
		}
	}
	return out
}

// DecodeStream reads the collector's stream and returns its records by name. Every record
// the summary lists must arrive exactly once, in order, with the summary's size and sha256;
// otherwise nothing is returned.
func DecodeStream(r io.Reader, s Summary, limits Limits) (map[string][]byte, error) {
	if !s.Streamed {
		return nil, errors.New("summary says the outputs are inline, not streamed")
	}
	limits = limits.WithDefaults()
	d := decoder{s: s, want: s.StreamedOutputs(), limits: limits, out: map[string][]byte{}}
	// The log also holds what the decoder skips (stderr lines), so the raw input gets a bound
	// of its own: the compressed limit, base64's 4/3 and frame headers fit well in twice it.
	maxRaw := 2*limits.MaxStreamBytes + 1<<20
	raw := &io.LimitedReader{R: r, N: maxRaw + 1}
	br := bufio.NewReaderSize(raw, maxLine+1024)
	for {
		line, err := readLine(br)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if raw.N <= 0 {
			return nil, fmt.Errorf("stream log exceeds %d bytes", maxRaw)
		}
		if !strings.HasPrefix(line, framePrefix) {
			continue
		}
		if err := d.frame(line[len(framePrefix):]); err != nil {
			return nil, fmt.Errorf("stream frame %d: %w", d.seq, err)
		}
	}
	if !d.ended {
		return nil, fmt.Errorf("stream truncated after %d frames: no end frame", d.seq)
	}
	return d.out, nil
}

// readLine reads one line without its ending; a line longer than any frame is an error.
func readLine(br *bufio.Reader) (string, error) {
	var line []byte
	for {
		part, isPrefix, err := br.ReadLine()
		if err != nil {
			if len(line) > 0 && errors.Is(err, io.EOF) {
				break
			}
			return "", err
		}
		line = append(line, part...)
		if len(line) > 4*maxLine {
			// Not a frame; skip the rest of it. A frame cut into it shows up as a gap.
			for isPrefix {
				if _, isPrefix, err = br.ReadLine(); err != nil {
					return "", err
				}
			}
			return "", nil
		}
		if !isPrefix {
			break
		}
	}
	return strings.TrimSuffix(string(line), "\r"), nil
}

type decoder struct {
	s      Summary
	want   []Output // records still expected, in order
	limits Limits
	out    map[string][]byte

	seq      int
	ended    bool
	current  *Output // record being received
	gz       []byte
	total    int64 // gzip bytes received
	nRecords int
}

func (d *decoder) frame(line string) error {
	crc, body, ok := strings.Cut(line, " ")
	if !ok {
		return errors.New("malformed frame")
	}
	if fmt.Sprintf("%08x", crc32.ChecksumIEEE([]byte(body))) != crc {
		return errors.New("checksum mismatch: frame corrupted")
	}
	fields := strings.SplitN(body, " ", 4)
	if len(fields) < 3 {
		return errors.New("malformed frame")
	}
	if fields[0] != d.s.StreamID {
		return fmt.Errorf("frame of stream %q, want %q (replayed or foreign)", fields[0], d.s.StreamID)
	}
	if d.ended {
		return errors.New("frame after the end frame (replayed stream)")
	}
	if fields[1] != strconv.Itoa(d.seq) {
		return fmt.Errorf("frame number %s, want %d (lost, reordered or replayed frame)", fields[1], d.seq)
	}
	d.seq++
	arg := ""
	if len(fields) == 4 {
		arg = fields[3]
	}
	switch fields[2] {
	case "R":
		if err := d.finishRecord(); err != nil {
			return err
		}
		return d.startRecord(arg)
	case "D":
		if d.current == nil {
			return errors.New("data frame outside a record")
		}
		chunk, err := base64.StdEncoding.DecodeString(arg)
		if err != nil {
			return fmt.Errorf("record %s: %w", d.current.Name, err)
		}
		d.total += int64(len(chunk))
		if d.total > d.limits.MaxStreamBytes {
			return fmt.Errorf("stream exceeds %d compressed bytes", d.limits.MaxStreamBytes)
		}
		d.gz = append(d.gz, chunk...)
		return nil
	case "E":
		if err := d.finishRecord(); err != nil {
			return err
		}
		if arg != strconv.Itoa(d.nRecords) {
			return fmt.Errorf("end frame counts %s records, received %d", arg, d.nRecords)
		}
		if len(d.want) > 0 {
			return fmt.Errorf("stream ended without record %s", d.want[0].Name)
		}
		d.ended = true
		return nil
	}
	return fmt.Errorf("unknown frame type %q", fields[2])
}

func (d *decoder) startRecord(arg string) error {
	f := strings.Fields(arg)
	if len(f) != 3 {
		return errors.New("malformed record header")
	}
	if len(d.want) == 0 {
		return fmt.Errorf("record %s is not in the summary", f[0])
	}
	want := d.want[0]
	if f[0] != want.Name {
		return fmt.Errorf("record %s, want %s", f[0], want.Name)
	}
	if f[1] != strconv.FormatInt(want.Size, 10) || f[2] != want.SHA256 {
		return fmt.Errorf("record %s header disagrees with the summary", want.Name)
	}
	if want.Size > d.limits.MaxRecordBytes {
		return fmt.Errorf("record %s has %d bytes, above the limit of %d", want.Name, want.Size, d.limits.MaxRecordBytes)
	}
	d.want = d.want[1:]
	d.current = &want
	d.gz = d.gz[:0]
	return nil
}

func (d *decoder) finishRecord() error {
	if d.current == nil {
		return nil
	}
	o := *d.current
	d.current = nil
	zr, err := gzip.NewReader(bytes.NewReader(d.gz))
	if err != nil {
		return fmt.Errorf("record %s: %w", o.Name, err)
	}
	// Read one byte past the declared size so that a record that inflates further is caught.
	data, err := io.ReadAll(io.LimitReader(zr, o.Size+1))
	if err != nil {
		return fmt.Errorf("record %s: %w", o.Name, err)
	}
	if int64(len(data)) != o.Size {
		return fmt.Errorf("record %s has %d bytes, summary says %d", o.Name, len(data), o.Size)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != o.SHA256 {
		return fmt.Errorf("record %s: sha256 mismatch", o.Name)
	}
	d.out[o.Name] = data
	d.nRecords++
	if o.Name == RecordVerifierFiles && d.s.Stage == StageVerifier {
		return d.expectVerifierFiles(data)
	}
	return nil
}

// expectVerifierFiles adds to the records still expected those the verifier's manifest lists
// as kept and the summary does not: they follow on the stream, in the manifest's order.
func (d *decoder) expectVerifierFiles(manifest []byte) error {
	m, err := DecodeVerifierFiles(manifest)
	if err != nil {
		return err
	}
	for _, f := range m.Files {
		if _, inSummary := d.s.Output(f.Name); f.Kept() && !inSummary {
			d.want = append(d.want, f.Output)
		}
	}
	return nil
}
