package recordstore

import (
	"context"
	"crypto/md5" //nolint:gosec // the MD5 Cloud Storage checks uploads against
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"
	"github.com/google/go-cmp/cmp"
	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"
	"gocloud.dev/gcerrors"
)

// startFakeGCS serves an empty bucket "records" from fake-gcs-server, an emulator of Cloud
// Storage's JSON API, and points STORAGE_EMULATOR_HOST at it.
func startFakeGCS(t *testing.T) *fakestorage.Server {
	t.Helper()
	port := freePort(t)
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{Scheme: "http", Host: "127.0.0.1", Port: uint16(port)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	srv.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: "records"})
	t.Setenv(gcsEmulatorVariable, fmt.Sprintf("127.0.0.1:%d", port))
	return srv
}

func openStore(t *testing.T, url string) *Store {
	t.Helper()
	s, err := Open(t.Context(), url)
	if err != nil {
		t.Fatalf("Open(%s): %v", url, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func openGCSDriver(t *testing.T) *gcsBucket {
	t.Helper()
	drv, err := newGCSBucket(t.Context(), "records")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = drv.Close() })
	return drv
}

func putObjects(srv *fakestorage.Server, contents map[string]string) {
	for name, content := range contents {
		srv.CreateObject(fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: "records", Name: name}, Content: []byte(content)})
	}
}

func objectExists(srv *fakestorage.Server, name string) bool {
	_, err := srv.GetObject("records", name)
	return err == nil
}

func TestGCSGetMissing(t *testing.T) {
	srv := startFakeGCS(t)
	putObjects(srv, map[string]string{"campaigns/ns/run-1/present.json": "{}"})
	s := openStore(t, "gs://records/campaigns")
	for _, key := range []string{"ns/run-1/absent.json", "elsewhere/absent.json"} {
		t.Run(key, func(t *testing.T) {
			if _, err := s.Get(t.Context(), key); !errors.Is(err, ErrNotFound) {
				t.Fatalf("Get(%s): %v, want ErrNotFound", key, err)
			}
		})
	}
}

func TestGCSURLTakesNoQuery(t *testing.T) {
	startFakeGCS(t)
	_, err := Open(t.Context(), "gs://records/campaigns?anonymous=true")
	if err == nil || !strings.Contains(err.Error(), "a gs:// store URL takes no query parameters") {
		t.Fatalf("Open: %v, want the query refused", err)
	}
}

func TestGCSListPages(t *testing.T) {
	srv := startFakeGCS(t)
	var want []string
	objects := map[string]string{"other/outside.json": "{}"}
	for i := range 7 {
		key := fmt.Sprintf("ns/run-1/t__%d/result.json", i)
		want = append(want, key)
		objects[key] = "{}"
	}
	putObjects(srv, objects)
	drv := openGCSDriver(t)
	cases := []struct {
		pageSize, wantPages int
	}{
		{pageSize: 1, wantPages: 7},
		{pageSize: 3, wantPages: 3},
		{pageSize: 7, wantPages: 1},
		{pageSize: 0, wantPages: 1}, // the service's largest page
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("page size %d", tc.pageSize), func(t *testing.T) {
			var got []string
			opts := &driver.ListOptions{Prefix: "ns/", PageSize: tc.pageSize}
			pages := 0
			for {
				page, err := drv.ListPaged(t.Context(), opts)
				if err != nil {
					t.Fatal(err)
				}
				pages++
				if tc.pageSize > 0 && len(page.Objects) > tc.pageSize {
					t.Errorf("page %d has %d objects, more than %d", pages, len(page.Objects), tc.pageSize)
				}
				for _, obj := range page.Objects {
					got = append(got, obj.Key)
				}
				if len(page.NextPageToken) == 0 {
					break
				}
				opts.PageToken = page.NextPageToken
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
			if pages != tc.wantPages {
				t.Errorf("%d pages, want %d", pages, tc.wantPages)
			}
		})
	}
}

func TestGCSPrefixedStoreListsOnlyItsKeys(t *testing.T) {
	srv := startFakeGCS(t)
	putObjects(srv, map[string]string{
		"campaigns/top.json":          `"top"`,
		"campaigns/ns/a.json":         "{}",
		"campaigns/ns/sub/b.json":     "{}",
		"campaigns-old/ns/c.json":     "{}",
		"other/campaigns/ns/d.json":   "{}",
		"campaigns.json":              "{}",
		"records-of-campaigns/x.json": "{}",
	})
	s := openStore(t, "gs://records/campaigns")
	cases := []struct {
		prefix string
		want   []string
	}{
		{prefix: "", want: []string{"ns/a.json", "ns/sub/b.json", "top.json"}},
		{prefix: "ns/", want: []string{"ns/a.json", "ns/sub/b.json"}},
		{prefix: "ns/sub/", want: []string{"ns/sub/b.json"}},
		{prefix: "absent/"},
	}
	for _, tc := range cases {
		t.Run("prefix "+tc.prefix, func(t *testing.T) {
			got, err := s.List(t.Context(), tc.prefix)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("List(%q) (-want +got):\n%s", tc.prefix, diff)
			}
		})
	}
	if got, err := s.Get(t.Context(), "top.json"); err != nil || string(got) != `"top"` {
		t.Errorf("Get(top.json) = %q, %v; want campaigns/top.json's bytes", got, err)
	}
}

func TestGCSNamesNeedingEscapes(t *testing.T) {
	srv := startFakeGCS(t)
	s := openStore(t, "gs://records/campaigns")
	cases := []struct {
		key, wantName string
	}{
		{key: "ns/with space.json", wantName: "campaigns/ns/with space.json"},
		{key: "ns/hash#1.json", wantName: "campaigns/ns/hash#1.json"},
		{key: "ns/what?.json", wantName: "campaigns/ns/what?.json"},
		{key: "ns/100%.json", wantName: "campaigns/ns/100%.json"},
		{key: "ns/%2F.json", wantName: "campaigns/ns/%2F.json"},
		{key: "ns/übersicht/日本語 ☺.json", wantName: "campaigns/ns/übersicht/日本語 ☺.json"},
		{key: "ns/a+b&c=d;e,f@g:h$.json", wantName: "campaigns/ns/a+b&c=d;e,f@g:h$.json"},
		// gocloud's gcsblob wrote these escaped; the names stay the same so that its objects
		// keep their keys.
		{key: "ns/dots../x.json", wantName: "campaigns/ns/dots..__0x2f__x.json"},
		{key: "ns/__0x41__.json", wantName: "campaigns/ns/__0x5f___0x41__.json"},
		{key: "ns/line\nbreak.json", wantName: "campaigns/ns/line__0xa__break.json"},
	}
	var keys []string
	for _, tc := range cases {
		t.Run(tc.key, func(t *testing.T) {
			data := []byte(fmt.Sprintf("%q", tc.key))
			if _, err := s.Put(t.Context(), tc.key, data); err != nil {
				t.Fatal(err)
			}
			got, err := s.Get(t.Context(), tc.key)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(data), string(got)); diff != "" {
				t.Errorf("read back (-want +got):\n%s", diff)
			}
			if !objectExists(srv, tc.wantName) {
				t.Errorf("the bucket has no object %q", tc.wantName)
			}
		})
		keys = append(keys, tc.key)
	}
	sort.Strings(keys)
	got, err := s.List(t.Context(), "ns/")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(keys, got); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
}

func TestGCSAttributesAndRanges(t *testing.T) {
	startFakeGCS(t)
	s := openStore(t, "gs://records/campaigns")
	const content = "abcdefghij"
	if _, err := s.Put(t.Context(), "ns/r.json", []byte(content)); err != nil {
		t.Fatal(err)
	}
	attrs, err := s.bucket.Attributes(t.Context(), "ns/r.json")
	if err != nil {
		t.Fatal(err)
	}
	sum := md5.Sum([]byte(content)) //nolint:gosec // see the import
	if attrs.ContentType != "application/json" || attrs.Size != int64(len(content)) || !cmp.Equal(attrs.MD5, sum[:]) || attrs.ModTime.IsZero() {
		t.Errorf("Attributes = type %q, size %d, MD5 %x, modified %v; want application/json, %d, %x, a time", attrs.ContentType, attrs.Size, attrs.MD5, attrs.ModTime, len(content), sum)
	}
	listed, _, err := s.bucket.ListPage(t.Context(), blob.FirstPageToken, 10, &blob.ListOptions{Prefix: "ns/"})
	if err != nil || len(listed) != 1 {
		t.Fatalf("ListPage: %v, %v", listed, err)
	}
	if obj := listed[0]; obj.Size != int64(len(content)) || !cmp.Equal(obj.MD5, sum[:]) || obj.ModTime.IsZero() || obj.IsDir {
		t.Errorf("listed %+v, want size %d, MD5 %x, a time", obj, len(content), sum)
	}
	cases := []struct {
		name           string
		offset, length int64
		want           string
	}{
		{name: "whole", length: -1, want: content},
		{name: "middle", offset: 2, length: 3, want: "cde"},
		{name: "from offset to end", offset: 5, length: -1, want: "fghij"},
		{name: "past the end", offset: 8, length: 5, want: "ij"},
		{name: "nothing", offset: 3, length: 0},
		{name: "from the end", offset: 10, length: -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := s.bucket.NewRangeReader(t.Context(), "ns/r.json", tc.offset, tc.length, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = r.Close() }()
			got, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("bytes (-want +got):\n%s", diff)
			}
			if r.Size() != int64(len(content)) || r.ContentType() != "application/json" || r.ModTime().IsZero() {
				t.Errorf("reader: size %d, type %q, modified %v; want %d, application/json, a time", r.Size(), r.ContentType(), r.ModTime(), len(content))
			}
		})
	}
}

func TestGCSDelete(t *testing.T) {
	srv := startFakeGCS(t)
	putObjects(srv, map[string]string{"campaigns/ns/a.json": "{}"})
	s := openStore(t, "gs://records/campaigns")
	cases := []struct {
		key      string
		wantCode gcerrors.ErrorCode
	}{
		{key: "ns/a.json", wantCode: gcerrors.OK},
		{key: "ns/a.json", wantCode: gcerrors.NotFound}, // deleted just before
		{key: "ns/never.json", wantCode: gcerrors.NotFound},
	}
	for _, tc := range cases {
		if code := gcerrors.Code(s.bucket.Delete(t.Context(), tc.key)); code != tc.wantCode {
			t.Errorf("Delete(%s): %v, want %v", tc.key, code, tc.wantCode)
		}
	}
	if _, err := s.Get(t.Context(), "ns/a.json"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get after Delete: %v, want ErrNotFound", err)
	}
}

// TestGCSWritesThatMustNotLand checks that a write is refused whole. fake-gcs-server checks an
// upload's md5Hash against its bytes and answers 400 as Cloud Storage does; blob.Writer checks
// the MD5 itself first and aborts, so the driver is called directly to show the service's
// refusal.
func TestGCSWritesThatMustNotLand(t *testing.T) {
	srv := startFakeGCS(t)
	drv := openGCSDriver(t)
	data := []byte(`{"reward":1}`)
	otherSum := md5.Sum([]byte(`{"reward":0}`)) //nolint:gosec // see the import
	cases := []struct {
		name     string
		write    func(ctx context.Context, name string) error
		wantCode gcerrors.ErrorCode
	}{
		{
			name: "the service refuses bytes that do not match md5Hash",
			write: func(ctx context.Context, name string) error {
				w, err := drv.NewTypedWriter(ctx, name, "application/json", &driver.WriterOptions{ContentMD5: otherSum[:]})
				if err != nil {
					return err
				}
				if _, err := w.Write(data); err != nil {
					return err
				}
				return w.Close()
			},
			wantCode: gcerrors.InvalidArgument,
		},
		{
			name: "blob.Writer aborts bytes that do not match ContentMD5",
			write: func(ctx context.Context, name string) error {
				return blob.NewBucket(drv).WriteAll(ctx, name, data, &blob.WriterOptions{ContentMD5: otherSum[:], ContentType: "application/json"})
			},
			wantCode: gcerrors.FailedPrecondition,
		},
		{
			name: "a writer whose context ended before Close",
			write: func(ctx context.Context, name string) error {
				ctx, cancel := context.WithCancel(ctx)
				defer cancel()
				w, err := drv.NewTypedWriter(ctx, name, "application/json", &driver.WriterOptions{})
				if err != nil {
					return err
				}
				if _, err := w.Write(data); err != nil {
					return err
				}
				cancel()
				return w.Close()
			},
			wantCode: gcerrors.Canceled,
		},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			name := fmt.Sprintf("ns/refused-%d.json", i)
			err := tc.write(t.Context(), name)
			code := gcerrors.Code(err)
			if code == gcerrors.Unknown {
				code = drv.ErrorCode(err)
			}
			if code != tc.wantCode {
				t.Errorf("write: %v (%v), want %v", err, code, tc.wantCode)
			}
			if objectExists(srv, name) {
				t.Errorf("the refused write left object %s", name)
			}
		})
	}
}

func TestGCSErrorCode(t *testing.T) {
	drv := &gcsBucket{name: "records"}
	refusal := func(status int) error {
		return &gcsError{Bucket: "records", Object: "ns/a.json", Status: status}
	}
	cases := []struct {
		name string
		err  error
		want gcerrors.ErrorCode
	}{
		{"400", refusal(http.StatusBadRequest), gcerrors.InvalidArgument},
		{"401", refusal(http.StatusUnauthorized), gcerrors.PermissionDenied},
		{"403", refusal(http.StatusForbidden), gcerrors.PermissionDenied},
		{"404", refusal(http.StatusNotFound), gcerrors.NotFound},
		{"409", refusal(http.StatusConflict), gcerrors.Unknown},
		{"412", refusal(http.StatusPreconditionFailed), gcerrors.FailedPrecondition},
		{"416", refusal(http.StatusRequestedRangeNotSatisfiable), gcerrors.Unknown},
		{"429", refusal(http.StatusTooManyRequests), gcerrors.ResourceExhausted},
		{"500", refusal(http.StatusInternalServerError), gcerrors.Internal},
		{"503", refusal(http.StatusServiceUnavailable), gcerrors.Internal},
		{"wrapped 404", fmt.Errorf("reading: %w", refusal(http.StatusNotFound)), gcerrors.NotFound},
		{"copy", drv.Copy(context.Background(), "a", "b", nil), gcerrors.Unimplemented},
		{"signed URL", func() error { _, err := drv.SignedURL(context.Background(), "a", nil); return err }(), gcerrors.Unimplemented},
		{"a connection error", errors.New("dial tcp: connection refused"), gcerrors.Unknown},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := drv.ErrorCode(tc.err); got != tc.want {
				t.Errorf("ErrorCode(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

func TestEmulatorEndpoint(t *testing.T) {
	cases := []struct {
		host, want, wantErr string
	}{
		{host: "127.0.0.1:9023", want: "http://127.0.0.1:9023"},
		{host: "localhost:4443", want: "http://localhost:4443"},
		{host: "http://localhost:4443", want: "http://localhost:4443"},
		{host: "https://gcs.test:4443/", want: "https://gcs.test:4443"},
		{host: "http://localhost:4443/storage/v1/", want: "http://localhost:4443"},
		{host: "ftp://localhost:21", wantErr: `STORAGE_EMULATOR_HOST="ftp://localhost:21" is not an emulator's address`},
		{host: "http://", wantErr: "set it to host:port or http://host:port"},
	}
	for _, tc := range cases {
		t.Run(tc.host, func(t *testing.T) {
			got, err := emulatorEndpoint(tc.host)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("emulatorEndpoint(%q) = %q, %v; want an error with %q", tc.host, got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("emulatorEndpoint(%q) = %q, %v; want %q", tc.host, got, err, tc.want)
			}
		})
	}
}

// dropConnection is a scripted answer that closes the connection without answering.
const dropConnection = 0

// scriptedGCS answers the requests it gets with the statuses of script in turn (the last one
// after that) and records their bodies.
type scriptedGCS struct {
	script []int
	mu     sync.Mutex
	bodies []string
}

func (s *scriptedGCS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.bodies = append(s.bodies, string(body))
	status := s.script[min(len(s.bodies), len(s.script))-1]
	s.mu.Unlock()
	switch {
	case status == dropConnection:
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			_ = conn.Close()
		}
	case status == http.StatusOK && r.URL.Query().Get("alt") == "media":
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Last-Modified", "Mon, 01 Dec 2025 10:00:00 GMT")
		_, _ = io.WriteString(w, `{"reward":1}`)
	case status == http.StatusOK:
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"name":"campaigns/ns/a.json"}`)
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = fmt.Fprintf(w, `{"error":{"code":%d,"message":"scripted %d"}}`, status, status)
	}
}

func (s *scriptedGCS) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

// startScriptedGCS points STORAGE_EMULATOR_HOST, with its scheme, at a server that answers
// with script, and opens gs://records/campaigns there.
func startScriptedGCS(t *testing.T, script ...int) (*scriptedGCS, *Store) {
	t.Helper()
	gcs := &scriptedGCS{script: script}
	srv := httptest.NewServer(gcs)
	t.Cleanup(srv.Close)
	t.Setenv(gcsEmulatorVariable, srv.URL)
	return gcs, openStore(t, "gs://records/campaigns")
}

func TestGCSRetries(t *testing.T) {
	const unavailable, tooMany, internal, notFound = http.StatusServiceUnavailable, http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusNotFound
	read := func(s *Store) error {
		data, err := s.bucket.ReadAll(context.Background(), "ns/a.json")
		if err == nil && string(data) != `{"reward":1}` {
			return fmt.Errorf("read %q", data)
		}
		return err
	}
	upload := func(s *Store) error {
		return s.bucket.WriteAll(context.Background(), "ns/a.json", []byte(`{"reward":1}`), &blob.WriterOptions{ContentType: "application/json"})
	}
	remove := func(s *Store) error { return s.bucket.Delete(context.Background(), "ns/a.json") }
	cases := []struct {
		name         string
		script       []int
		call         func(*Store) error
		wantCode     gcerrors.ErrorCode
		wantRequests int
	}{
		{name: "a read after 503", script: []int{unavailable, http.StatusOK}, call: read, wantRequests: 2},
		{name: "a read after 429 and 500", script: []int{tooMany, internal, http.StatusOK}, call: read, wantRequests: 3},
		{name: "a read after a dropped connection", script: []int{dropConnection, http.StatusOK}, call: read, wantRequests: 2},
		{name: "a read that stays unavailable", script: []int{unavailable}, call: read, wantCode: gcerrors.Internal, wantRequests: gcsAttempts},
		{name: "a read of a missing object is not retried", script: []int{notFound}, call: read, wantCode: gcerrors.NotFound, wantRequests: 1},
		{name: "an upload after 503", script: []int{unavailable, http.StatusOK}, call: upload, wantRequests: 2},
		{name: "a delete is not retried", script: []int{unavailable}, call: remove, wantCode: gcerrors.Internal, wantRequests: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			gcs, s := startScriptedGCS(t, tc.script...)
			err := tc.call(s)
			if code := gcerrors.Code(err); code != tc.wantCode {
				t.Errorf("error %v (%v), want %v", err, code, tc.wantCode)
			}
			bodies := gcs.requests()
			if len(bodies) != tc.wantRequests {
				t.Errorf("%d requests, want %d", len(bodies), tc.wantRequests)
			}
			for i, body := range bodies[1:] {
				if body != bodies[0] {
					t.Errorf("request %d sent %q, the first %q: a retry sends the same", i+2, body, bodies[0])
				}
			}
		})
	}
}

func TestGCSErrorCarriesTheServiceMessage(t *testing.T) {
	const message = "sweep-manager@project.iam.gserviceaccount.com does not have storage.objects.get access to the Google Cloud Storage object."
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.WriteHeader(http.StatusForbidden)
		_, _ = fmt.Fprintf(w, `{"error":{"code":403,"message":%q,"errors":[{"message":%q,"domain":"global","reason":"forbidden"}]}}`, message, message)
	}))
	t.Cleanup(srv.Close)
	t.Setenv(gcsEmulatorVariable, srv.URL)
	s := openStore(t, "gs://records/campaigns")
	_, err := s.Get(t.Context(), "ns/a.json")
	if code := gcerrors.Code(err); code != gcerrors.PermissionDenied {
		t.Errorf("code %v, want PermissionDenied", code)
	}
	for _, want := range []string{"gs://records/campaigns/ns/a.json", "403", message, "roles/storage.objectUser"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not say %q", err, want)
		}
	}
	var refused *gcsError
	if !s.bucket.ErrorAs(err, &refused) {
		t.Fatalf("ErrorAs(%v, *gcsError) is false", err)
	}
	want := &gcsError{Bucket: "records", Object: "campaigns/ns/a.json", Status: http.StatusForbidden, Message: message}
	if diff := cmp.Diff(want, refused); diff != "" {
		t.Errorf("refusal (-want +got):\n%s", diff)
	}
}
