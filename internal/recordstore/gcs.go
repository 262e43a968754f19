package recordstore

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"
	"gocloud.dev/gcerrors"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
)

const (
	gcsEndpoint = "https://storage.googleapis.com"
	// gcsScope lets the store read, write, list and delete objects, and nothing else.
	gcsScope = "https://www.googleapis.com/auth/devstorage.read_write"
	// gcsEmulatorVariable names an emulator to use instead of the service, as Google's own
	// clients read it: host:port (plain HTTP) or a URL with its scheme.
	gcsEmulatorVariable = "STORAGE_EMULATOR_HOST"
	// gcsMaxPageSize is the most objects the service lists in one answer.
	gcsMaxPageSize = 1000
	// gcsAttempts and gcsFirstRetryDelay bound the retries of a request the service refused
	// for a moment (429, 5xx) or that lost its connection: under a second of pauses in all.
	gcsAttempts        = 4
	gcsFirstRetryDelay = 100 * time.Millisecond
	// gcsErrorBodyLimit is how much of a refusal's body is read for its message.
	gcsErrorBodyLimit = 64 << 10
)

// errGCSUnsupported is what the operations the record store never uses (Copy, SignedURL)
// return; ErrorCode makes it gcerrors.Unimplemented.
var errGCSUnsupported = errors.New("not supported by the record store's Cloud Storage client")

// gcsBucket is a gocloud.dev/blob driver for one Cloud Storage bucket over the service's JSON
// API, on net/http (see openGCS for why not Google's client).
type gcsBucket struct {
	name     string
	endpoint string       // scheme://host of the JSON API, without a trailing slash
	client   *http.Client // adds the credentials, if any
}

// openGCS opens the bucket of a gs:// URL. Google's Go client for Cloud Storage (and gocloud's
// gcsblob on it) links gRPC, xDS, OpenTelemetry exporters and Cloud Monitoring: about 38 MB of
// the manager's binary, and their resident pages in its memory. The store needs a handful of
// JSON API calls, so it makes them itself.
func openGCS(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	if u.RawQuery != "" {
		return nil, fmt.Errorf("a gs:// store URL takes no query parameters (got %q): remove them; credentials are Application Default Credentials", u.RawQuery)
	}
	drv, err := newGCSBucket(ctx, u.Host)
	if err != nil {
		return nil, err
	}
	return blob.NewBucket(drv), nil
}

// newGCSBucket talks to the emulator that STORAGE_EMULATOR_HOST names, without credentials,
// or else to Cloud Storage with Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS,
// gcloud's login, or the workload identity from the metadata server).
func newGCSBucket(ctx context.Context, bucket string) (*gcsBucket, error) {
	if host := os.Getenv(gcsEmulatorVariable); host != "" {
		endpoint, err := emulatorEndpoint(host)
		if err != nil {
			return nil, err
		}
		return &gcsBucket{name: bucket, endpoint: endpoint, client: &http.Client{}}, nil
	}
	// The token source refreshes with this context for as long as the store is open, past the
	// caller's request: keep its values, drop its cancellation.
	ctx = context.WithoutCancel(ctx)
	creds, err := google.FindDefaultCredentials(ctx, gcsScope)
	if err != nil {
		return nil, fmt.Errorf("gs://%s: no Google Application Default Credentials (%w): run with a workload identity, set GOOGLE_APPLICATION_CREDENTIALS to a service account key file, or run `gcloud auth application-default login`", bucket, err)
	}
	return &gcsBucket{name: bucket, endpoint: gcsEndpoint, client: oauth2.NewClient(ctx, creds.TokenSource)}, nil
}

// emulatorEndpoint is the JSON API's address for a STORAGE_EMULATOR_HOST value.
func emulatorEndpoint(host string) (string, error) {
	raw := host
	if !strings.Contains(host, "://") {
		raw = "http://" + host
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("%s=%q is not an emulator's address: set it to host:port or http://host:port", gcsEmulatorVariable, host)
	}
	return u.Scheme + "://" + u.Host, nil
}

// gcsError is a request Cloud Storage refused: its HTTP status and the service's message.
type gcsError struct {
	Bucket, Object string
	Status         int
	Message        string
}

func (e *gcsError) Error() string {
	msg := fmt.Sprintf("gs://%s/%s: Cloud Storage answered %d %s", e.Bucket, e.Object, e.Status, http.StatusText(e.Status))
	if e.Message != "" {
		msg += ": " + e.Message
	}
	if e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden {
		msg += fmt.Sprintf(" (the manager's Google credentials need read, write, list and delete access to objects in bucket %s, e.g. roles/storage.objectUser)", e.Bucket)
	}
	return msg
}

// gcsObject is the JSON API's object resource: the metadata of an upload, and what the service
// answers about an object.
type gcsObject struct {
	Name               string            `json:"name"`
	ContentType        string            `json:"contentType,omitempty"`
	CacheControl       string            `json:"cacheControl,omitempty"`
	ContentDisposition string            `json:"contentDisposition,omitempty"`
	ContentEncoding    string            `json:"contentEncoding,omitempty"`
	ContentLanguage    string            `json:"contentLanguage,omitempty"`
	Metadata           map[string]string `json:"metadata,omitempty"`
	MD5Hash            string            `json:"md5Hash,omitempty"` // base64; on upload the service checks the bytes against it
	Size               int64             `json:"size,string,omitempty"`
	ETag               string            `json:"etag,omitempty"`
	TimeCreated        time.Time         `json:"timeCreated,omitzero"`
	Updated            time.Time         `json:"updated,omitzero"`
}

func (o *gcsObject) md5() []byte {
	sum, err := base64.StdEncoding.DecodeString(o.MD5Hash)
	if err != nil || len(sum) == 0 {
		return nil // composite objects have no MD5
	}
	return sum
}

// gcsCall is one request to the service. Its body is kept whole so that a retry sends it again.
type gcsCall struct {
	method, url string
	header      http.Header
	body        []byte
	object      string // the object or prefix it concerns, for errors
	retry       bool   // idempotent: a read, or a whole-object upload
}

// do sends call and returns the service's answer when it is a success; a refusal is a
// *gcsError. A call marked retry is sent again, after a short growing pause, when the service
// answers 429 or 5xx or the connection fails, until gcsAttempts or the context ends it.
func (b *gcsBucket) do(ctx context.Context, call gcsCall) (*http.Response, error) {
	delay := gcsFirstRetryDelay
	for attempt := 1; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, call.method, call.url, bytes.NewReader(call.body))
		if err != nil {
			return nil, fmt.Errorf("gs://%s/%s: %w", b.name, call.object, err)
		}
		for k, v := range call.header {
			req.Header[k] = v
		}
		resp, err := b.client.Do(req)
		var failure error
		switch {
		case err != nil:
			failure = fmt.Errorf("gs://%s/%s: %w", b.name, call.object, err)
			if ctx.Err() != nil {
				return nil, failure
			}
		case resp.StatusCode < 300:
			return resp, nil
		default:
			failure = b.refusal(resp, call.object)
			if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode < 500 {
				return nil, failure
			}
		}
		if !call.retry {
			return nil, failure
		}
		if attempt == gcsAttempts {
			return nil, fmt.Errorf("%w (the last of %d attempts)", failure, attempt)
		}
		// Jitter spreads the retries of managers that failed together.
		pause := delay/2 + rand.N(delay/2)
		select {
		case <-ctx.Done():
			return nil, failure
		case <-time.After(pause):
		}
		delay *= 2
	}
}

// refusal reads the service's message from a refused request's body (the JSON API's
// {"error": {"message": ...}}, or the text of a plain answer) and closes it.
func (b *gcsBucket) refusal(resp *http.Response, object string) error {
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, gcsErrorBodyLimit))
	var answer struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	message := strings.TrimSpace(string(body))
	if json.Unmarshal(body, &answer) == nil && answer.Error.Message != "" {
		message = answer.Error.Message
	} else if len(message) > 500 {
		message = strings.ToValidUTF8(message[:500], "") + "..."
	}
	return &gcsError{Bucket: b.name, Object: object, Status: resp.StatusCode, Message: message}
}

// discard drains and closes an answer whose body is not needed, so its connection is reused.
func discard(resp *http.Response) {
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
}

func (b *gcsBucket) objectURL(name string) string {
	return b.endpoint + "/storage/v1/b/" + url.PathEscape(b.name) + "/o/" + url.PathEscape(name)
}

// ErrorCode implements driver.Bucket.
func (b *gcsBucket) ErrorCode(err error) gcerrors.ErrorCode {
	if errors.Is(err, errGCSUnsupported) {
		return gcerrors.Unimplemented
	}
	var refused *gcsError
	if !errors.As(err, &refused) {
		return gcerrors.Unknown
	}
	switch refused.Status {
	case http.StatusNotFound:
		return gcerrors.NotFound
	case http.StatusPreconditionFailed:
		return gcerrors.FailedPrecondition
	case http.StatusUnauthorized, http.StatusForbidden:
		return gcerrors.PermissionDenied
	case http.StatusBadRequest:
		return gcerrors.InvalidArgument
	case http.StatusTooManyRequests:
		return gcerrors.ResourceExhausted
	}
	if refused.Status >= 500 {
		return gcerrors.Internal
	}
	return gcerrors.Unknown
}

// As implements driver.Bucket: the client exposes no types of its own.
func (b *gcsBucket) As(any) bool { return false }

// ErrorAs implements driver.Bucket: a refusal converts to **gcsError.
func (b *gcsBucket) ErrorAs(err error, target any) bool {
	p, ok := target.(**gcsError)
	if !ok {
		return false
	}
	return errors.As(err, p)
}

// Attributes implements driver.Bucket.
func (b *gcsBucket) Attributes(ctx context.Context, key string) (*driver.Attributes, error) {
	name, err := b.objectName(key)
	if err != nil {
		return nil, err
	}
	obj, err := b.metadata(ctx, name)
	if err != nil {
		return nil, err
	}
	etag := obj.ETag
	if !strings.HasPrefix(etag, `"`) && !strings.HasPrefix(etag, `W/"`) {
		etag = strconv.Quote(etag) // the JSON API gives the ETag unquoted; HTTP's has quotes
	}
	return &driver.Attributes{
		CacheControl:       obj.CacheControl,
		ContentDisposition: obj.ContentDisposition,
		ContentEncoding:    obj.ContentEncoding,
		ContentLanguage:    obj.ContentLanguage,
		ContentType:        obj.ContentType,
		Metadata:           obj.Metadata,
		CreateTime:         obj.TimeCreated,
		ModTime:            obj.Updated,
		Size:               obj.Size,
		MD5:                obj.md5(),
		ETag:               etag,
	}, nil
}

func (b *gcsBucket) metadata(ctx context.Context, name string) (*gcsObject, error) {
	resp, err := b.do(ctx, gcsCall{method: http.MethodGet, url: b.objectURL(name), object: name, retry: true})
	if err != nil {
		return nil, err
	}
	defer discard(resp)
	var obj gcsObject
	if err := json.NewDecoder(resp.Body).Decode(&obj); err != nil {
		return nil, fmt.Errorf("gs://%s/%s: reading the object's metadata: %w", b.name, name, err)
	}
	return &obj, nil
}

// ListPaged implements driver.Bucket.
func (b *gcsBucket) ListPaged(ctx context.Context, opts *driver.ListOptions) (*driver.ListPage, error) {
	prefix := gcsObjectName(opts.Prefix)
	q := url.Values{}
	if prefix != "" {
		q.Set("prefix", prefix)
	}
	if opts.Delimiter != "" {
		q.Set("delimiter", gcsObjectName(opts.Delimiter))
	}
	if len(opts.PageToken) > 0 {
		q.Set("pageToken", string(opts.PageToken))
	}
	pageSize := opts.PageSize
	if pageSize == 0 || pageSize > gcsMaxPageSize {
		pageSize = gcsMaxPageSize
	}
	q.Set("maxResults", strconv.Itoa(pageSize))
	if opts.BeforeList != nil {
		if err := opts.BeforeList(b.As); err != nil {
			return nil, err
		}
	}
	listURL := b.endpoint + "/storage/v1/b/" + url.PathEscape(b.name) + "/o?" + q.Encode()
	resp, err := b.do(ctx, gcsCall{method: http.MethodGet, url: listURL, object: prefix, retry: true})
	if err != nil {
		return nil, err
	}
	defer discard(resp)
	var answer struct {
		Items         []gcsObject `json:"items"`
		Prefixes      []string    `json:"prefixes"`
		NextPageToken string      `json:"nextPageToken"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		return nil, fmt.Errorf("gs://%s/%s: reading the listing: %w", b.name, prefix, err)
	}
	page := &driver.ListPage{NextPageToken: []byte(answer.NextPageToken)}
	for _, obj := range answer.Items {
		page.Objects = append(page.Objects, &driver.ListObject{Key: gcsKey(obj.Name), ModTime: obj.Updated, Size: obj.Size, MD5: obj.md5()})
	}
	for _, dir := range answer.Prefixes {
		page.Objects = append(page.Objects, &driver.ListObject{Key: gcsKey(dir), IsDir: true})
	}
	// The service gives a page's objects and its "directories" in separate sorted lists.
	sort.Slice(page.Objects, func(i, j int) bool { return page.Objects[i].Key < page.Objects[j].Key })
	return page, nil
}

// NewRangeReader implements driver.Bucket.
func (b *gcsBucket) NewRangeReader(ctx context.Context, key string, offset, length int64, opts *driver.ReaderOptions) (driver.Reader, error) {
	name, err := b.objectName(key)
	if err != nil {
		return nil, err
	}
	if opts.BeforeRead != nil {
		if err := opts.BeforeRead(b.As); err != nil {
			return nil, err
		}
	}
	if length == 0 {
		return b.emptyReader(ctx, name)
	}
	header := http.Header{}
	switch {
	case length > 0:
		header.Set("Range", fmt.Sprintf("bytes=%d-%d", offset, offset+length-1))
	case offset > 0:
		header.Set("Range", fmt.Sprintf("bytes=%d-", offset))
	}
	resp, err := b.do(ctx, gcsCall{method: http.MethodGet, url: b.objectURL(name) + "?alt=media", header: header, object: name, retry: true})
	var refused *gcsError
	if errors.As(err, &refused) && refused.Status == http.StatusRequestedRangeNotSatisfiable {
		return b.emptyReader(ctx, name) // offset at or past the end: nothing to read
	}
	if err != nil {
		return nil, err
	}
	attrs := driver.ReaderAttributes{ContentType: resp.Header.Get("Content-Type"), Size: objectSize(resp)}
	if attrs.ContentType == "" {
		attrs.ContentType = "application/octet-stream"
	}
	if modTime, err := http.ParseTime(resp.Header.Get("Last-Modified")); err == nil {
		attrs.ModTime = modTime
	}
	return &gcsReader{body: resp.Body, attrs: attrs}, nil
}

// emptyReader reads no bytes but has the object's attributes, for reads of nothing.
func (b *gcsBucket) emptyReader(ctx context.Context, name string) (driver.Reader, error) {
	obj, err := b.metadata(ctx, name)
	if err != nil {
		return nil, err
	}
	return &gcsReader{
		body:  io.NopCloser(bytes.NewReader(nil)),
		attrs: driver.ReaderAttributes{ContentType: obj.ContentType, ModTime: obj.Updated, Size: obj.Size},
	}, nil
}

// objectSize is the size of the whole object a download is part of: the total of its
// Content-Range when ranged, else its length.
func objectSize(resp *http.Response) int64 {
	if resp.StatusCode == http.StatusPartialContent {
		contentRange := resp.Header.Get("Content-Range")
		if size, err := strconv.ParseInt(contentRange[strings.LastIndex(contentRange, "/")+1:], 10, 64); err == nil {
			return size
		}
	}
	if resp.ContentLength >= 0 {
		return resp.ContentLength
	}
	// net/http hides the length of an answer it decompresses.
	size, _ := strconv.ParseInt(resp.Header.Get("X-Goog-Stored-Content-Length"), 10, 64)
	return size
}

type gcsReader struct {
	body  io.ReadCloser
	attrs driver.ReaderAttributes
}

func (r *gcsReader) Read(p []byte) (int, error)           { return r.body.Read(p) }
func (r *gcsReader) Close() error                         { return r.body.Close() }
func (r *gcsReader) Attributes() *driver.ReaderAttributes { return &r.attrs }
func (r *gcsReader) As(any) bool                          { return false }

// NewTypedWriter implements driver.Bucket. The object is uploaded whole when the writer is
// closed, so that it appears complete or not at all.
func (b *gcsBucket) NewTypedWriter(ctx context.Context, key, contentType string, opts *driver.WriterOptions) (driver.Writer, error) {
	name, err := b.objectName(key)
	if err != nil {
		return nil, err
	}
	if opts.BeforeWrite != nil {
		if err := opts.BeforeWrite(b.As); err != nil {
			return nil, err
		}
	}
	meta := gcsObject{
		Name:               name,
		ContentType:        contentType,
		CacheControl:       opts.CacheControl,
		ContentDisposition: opts.ContentDisposition,
		ContentEncoding:    opts.ContentEncoding,
		ContentLanguage:    opts.ContentLanguage,
		Metadata:           opts.Metadata,
	}
	if len(opts.ContentMD5) > 0 {
		meta.MD5Hash = base64.StdEncoding.EncodeToString(opts.ContentMD5)
	}
	return &gcsWriter{ctx: ctx, bucket: b, meta: meta, ifNotExist: opts.IfNotExist}, nil
}

type gcsWriter struct {
	ctx        context.Context
	bucket     *gcsBucket
	meta       gcsObject
	ifNotExist bool
	data       bytes.Buffer
}

func (w *gcsWriter) Write(p []byte) (int, error) { return w.data.Write(p) }

// Close uploads the object in one multipart request (its metadata, then its bytes), unless
// the writer's context ended first: blob.Writer cancels it to abort a write whose bytes do not
// match their MD5.
func (w *gcsWriter) Close() error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	b := w.bucket
	meta, err := json.Marshal(w.meta)
	if err != nil {
		return fmt.Errorf("gs://%s/%s: %w", b.name, w.meta.Name, err)
	}
	var body bytes.Buffer
	parts := multipart.NewWriter(&body)
	media := textproto.MIMEHeader{}
	if w.meta.ContentType != "" {
		media.Set("Content-Type", w.meta.ContentType)
	}
	for _, part := range []struct {
		header textproto.MIMEHeader
		data   []byte
	}{
		{textproto.MIMEHeader{"Content-Type": {"application/json; charset=UTF-8"}}, meta},
		{media, w.data.Bytes()},
	} {
		pw, err := parts.CreatePart(part.header)
		if err != nil {
			return fmt.Errorf("gs://%s/%s: %w", b.name, w.meta.Name, err)
		}
		if _, err := pw.Write(part.data); err != nil {
			return fmt.Errorf("gs://%s/%s: %w", b.name, w.meta.Name, err)
		}
	}
	if err := parts.Close(); err != nil {
		return fmt.Errorf("gs://%s/%s: %w", b.name, w.meta.Name, err)
	}
	q := url.Values{"uploadType": {"multipart"}}
	if w.ifNotExist {
		q.Set("ifGenerationMatch", "0") // only if there is no live object of that name
	}
	resp, err := b.do(w.ctx, gcsCall{
		method: http.MethodPost,
		url:    b.endpoint + "/upload/storage/v1/b/" + url.PathEscape(b.name) + "/o?" + q.Encode(),
		header: http.Header{"Content-Type": {"multipart/related; boundary=" + parts.Boundary()}},
		body:   body.Bytes(),
		object: w.meta.Name,
		retry:  true,
	})
	if err != nil {
		return err
	}
	discard(resp)
	return nil
}

// Copy implements driver.Bucket; the record store never copies.
func (b *gcsBucket) Copy(_ context.Context, dstKey, srcKey string, _ *driver.CopyOptions) error {
	return fmt.Errorf("copying gs://%s/%s to %s: %w", b.name, srcKey, dstKey, errGCSUnsupported)
}

// Delete implements driver.Bucket. It is not retried: a retry of a delete that was done but
// whose answer was lost would report the object missing.
func (b *gcsBucket) Delete(ctx context.Context, key string, opts *driver.DeleteOptions) error {
	name, err := b.objectName(key)
	if err != nil {
		return err
	}
	if opts.BeforeDelete != nil {
		if err := opts.BeforeDelete(b.As); err != nil {
			return err
		}
	}
	resp, err := b.do(ctx, gcsCall{method: http.MethodDelete, url: b.objectURL(name), object: name})
	if err != nil {
		return err
	}
	discard(resp)
	return nil
}

// SignedURL implements driver.Bucket; the record store hands out no URLs.
func (b *gcsBucket) SignedURL(_ context.Context, key string, _ *driver.SignedURLOptions) (string, error) {
	return "", fmt.Errorf("signing a URL for gs://%s/%s: %w", b.name, key, errGCSUnsupported)
}

// Close implements driver.Bucket.
func (b *gcsBucket) Close() error {
	b.client.CloseIdleConnections()
	return nil
}

// objectName is the object name of key, which must not be empty: the API's path for an
// object without a name is the bucket's listing.
func (b *gcsBucket) objectName(key string) (string, error) {
	if key == "" {
		return "", fmt.Errorf("gs://%s: an object needs a name: give a non-empty key", b.name)
	}
	return gcsObjectName(key), nil
}

// gcsObjectName is the object name of key, as gocloud's gcsblob (this store's gs:// driver
// before) named it, so that the objects it wrote keep their keys: carriage returns, line
// feeds, the slash of "../", and the start of anything that reads as such an escape are
// written "__0x<hex>__".
func gcsObjectName(key string) string {
	runes := []rune(key)
	var name strings.Builder
	for i, r := range runes {
		escaped, _, _ := hexEscapeAt(runes, i)
		if r == '\n' || r == '\r' || (r == '/' && i > 1 && runes[i-1] == '.' && runes[i-2] == '.') || escaped {
			fmt.Fprintf(&name, "__%#x__", r)
		} else {
			name.WriteRune(r)
		}
	}
	return name.String()
}

// gcsKey reverses gcsObjectName.
func gcsKey(name string) string {
	runes := []rune(name)
	var key strings.Builder
	for i := 0; i < len(runes); i++ {
		if ok, r, last := hexEscapeAt(runes, i); ok {
			key.WriteRune(r)
			i = last
		} else {
			key.WriteRune(runes[i])
		}
	}
	return key.String()
}

// hexEscapeAt says whether an escape "__0x<hex>__" starts at runes[i], and if so the rune it
// stands for and the index of its last rune.
func hexEscapeAt(runes []rune, i int) (bool, rune, int) {
	const open = "__0x"
	rest := runes[i:]
	if len(rest) < len(open) || string(rest[:len(open)]) != open {
		return false, 0, 0
	}
	digits := len(open)
	for digits < len(rest) && rest[digits] != '_' {
		digits++
	}
	if digits+1 >= len(rest) || rest[digits+1] != '_' {
		return false, 0, 0
	}
	r, err := strconv.ParseInt(string(rest[len(open):digits]), 16, 32)
	if err != nil {
		return false, 0, 0
	}
	return true, rune(r), i + digits + 1
}
