// Package recordstore is the artifact store: where the manager keeps each trial's record in
// Harbor's job layout, so that a campaign's results outlive its cluster objects. A store is a
// gocloud.dev/blob bucket opened from a URL (file://, s3://, gs://, azblob://; mem:// in tests),
// with an optional key prefix taken from the URL's path. gs:// is this package's own client of
// Cloud Storage's JSON API (gcs.go), not gocloud's driver: Google's client beneath that links
// gRPC, xDS and OpenTelemetry, about 38 MB of the manager's binary and its resident pages.
package recordstore

import (
	"bytes"
	"context"
	"crypto/md5" //nolint:gosec // MD5 is what the blob services check a write against, not a defense
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	gcaws "gocloud.dev/aws"
	"gocloud.dev/blob"
	_ "gocloud.dev/blob/azureblob" // azblob:// through the blob URL mux
	"gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/memblob" // mem://, for tests
	"gocloud.dev/blob/s3blob"
	"gocloud.dev/gcerrors"
)

// Schemes a store URL may have. mem:// keeps nothing past the process: tests only.
const (
	SchemeFile = "file"
	SchemeS3   = "s3"
	// SchemeGCS is Cloud Storage through this package's own JSON API client (see openGCS):
	// Google's client links gRPC, xDS and OpenTelemetry, some 38 MB of the manager.
	SchemeGCS    = "gs"
	SchemeAzure  = "azblob"
	SchemeMemory = "mem"
)

// ErrNotFound is returned by Get for a key the store does not hold.
var ErrNotFound = errors.New("not in the store")

// Store is an opened artifact store. Keys are slash-separated and relative to the URL's prefix.
type Store struct {
	bucket *blob.Bucket
	url    *url.URL
}

// Open opens the store at rawURL. The path of an s3://, gs:// or azblob:// URL is a key prefix
// (s3://bucket/campaigns?region=...); the path of a file:// URL is the directory. Credentials
// are the service's default chain: the environment (AWS_ACCESS_KEY_ID, AZURE_STORAGE_KEY,
// ...), shared configuration, or the cloud's workload identity.
func Open(ctx context.Context, rawURL string) (*Store, error) {
	u, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	var b *blob.Bucket
	switch u.Scheme {
	case SchemeFile:
		b, err = openFile(u)
	case SchemeS3:
		b, err = openS3(ctx, u)
	case SchemeGCS:
		b, err = openGCS(ctx, u)
	default:
		bare := *u
		bare.Path = ""
		b, err = blob.OpenBucket(ctx, bare.String())
	}
	if err != nil {
		return nil, fmt.Errorf("opening store %s: %w", Redacted(u), err)
	}
	if prefix := strings.Trim(u.Path, "/"); prefix != "" && u.Scheme != SchemeFile {
		b = blob.PrefixedBucket(b, prefix+"/")
	}
	return &Store{bucket: b, url: u}, nil
}

// ParseURL checks a store URL: a known scheme, a bucket (or a directory for file://).
func ParseURL(rawURL string) (*url.URL, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("store URL %q: %w", rawURL, err)
	}
	switch u.Scheme {
	case SchemeFile:
		if u.Path == "" || u.Path == "/" {
			return nil, fmt.Errorf("store URL %q: a file:// store needs a directory, e.g. file:///var/lib/sweep-operator/store", rawURL)
		}
	case SchemeS3, SchemeGCS, SchemeAzure:
		if u.Host == "" {
			return nil, fmt.Errorf("store URL %q: needs a bucket, e.g. %s://BUCKET/PREFIX", rawURL, u.Scheme)
		}
	case SchemeMemory:
	default:
		return nil, fmt.Errorf("store URL %q: unknown scheme %q: use file://, s3://, gs:// or azblob://", rawURL, u.Scheme)
	}
	return u, nil
}

// openFile opens a directory without metadata sidecars (the folder is read by Harbor's and
// SWE-sweep's tools as it is) and with its temporary files beside their targets, since the
// store is usually a volume of its own, where a rename from /tmp would fail.
func openFile(u *url.URL) (*blob.Bucket, error) {
	dir := filepath.FromSlash(u.Path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return fileblob.OpenBucket(dir, &fileblob.Options{NoTempDir: true, Metadata: fileblob.MetadataDontWrite, DirFileMode: 0o755})
}

// openS3 opens an S3 bucket with gocloud's URL parameters (region, endpoint, use_path_style,
// disable_https, ...), which name an S3-compatible server as well as AWS.
func openS3(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	q := u.Query()
	var s3opts []func(*s3.Options)
	for _, key := range []string{"use_path_style", "s3ForcePathStyle"} {
		if v := q.Get(key); v != "" {
			on, err := strconv.ParseBool(v)
			if err != nil {
				return nil, fmt.Errorf("query %s=%q: %w", key, v, err)
			}
			s3opts = append(s3opts, func(o *s3.Options) { o.UsePathStyle = on })
			q.Del(key)
		}
	}
	if v := q.Get("disable_https"); v != "" {
		off, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("query disable_https=%q: %w", v, err)
		}
		s3opts = append(s3opts, func(o *s3.Options) { o.EndpointOptions.DisableHTTPS = off })
		q.Del("disable_https")
	}
	cfg, err := gcaws.V2ConfigFromURLParams(ctx, q)
	if err != nil {
		return nil, err
	}
	return s3blob.OpenBucket(ctx, s3.NewFromConfig(cfg, s3opts...), u.Host, nil)
}

// Redacted is the URL without user info, for messages and status. Store URLs carry no
// secrets in their query (credentials come from a Secret or the environment), and the query
// (an endpoint, a region) is needed to read the store back.
func Redacted(u *url.URL) string {
	c := *u
	c.User = nil
	return c.String()
}

// URL is the store's URL as it was opened, without user info.
func (s *Store) URL() string { return Redacted(s.url) }

// KeyURL is the URL a key can be read back at (a store URL whose prefix ends at key), for
// status and messages.
func (s *Store) KeyURL(key string) string {
	c := *s.url
	c.User = nil
	c.Path = strings.TrimSuffix(c.Path, "/") + "/" + key
	return c.String()
}

// Close releases the store's connections.
func (s *Store) Close() error { return s.bucket.Close() }

// Put writes data at key unless the store already holds exactly those bytes there, and says
// whether it wrote. The service checks the bytes it received against their MD5; Put then reads
// the object back and compares SHA-256, so that a record is never left torn or different from
// what the manager meant. Writes are whole-object (a rename or a completed upload): a manager
// killed mid-write leaves the old object or none, and its retry writes it again.
func (s *Store) Put(ctx context.Context, key string, data []byte) (bool, error) {
	if err := checkKey(key); err != nil {
		return false, err
	}
	want := sha256.Sum256(data)
	if have, err := s.Get(ctx, key); err == nil && sha256.Sum256(have) == want {
		return false, nil
	} else if err != nil && !errors.Is(err, ErrNotFound) {
		return false, err
	}
	sum := md5.Sum(data) //nolint:gosec // see the import
	if err := s.bucket.WriteAll(ctx, key, data, &blob.WriterOptions{ContentMD5: sum[:], ContentType: contentType(key)}); err != nil {
		return false, fmt.Errorf("writing %s: %w", s.KeyURL(key), err)
	}
	back, err := s.Get(ctx, key)
	if err != nil {
		return true, fmt.Errorf("reading back %s: %w", s.KeyURL(key), err)
	}
	if sha256.Sum256(back) != want {
		return true, fmt.Errorf("%s: the store holds %d bytes that differ from the %d written", s.KeyURL(key), len(back), len(data))
	}
	return true, nil
}

// Get reads the object at key; a missing one is ErrNotFound.
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	data, err := s.bucket.ReadAll(ctx, key)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, fmt.Errorf("%s: %w", s.KeyURL(key), ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.KeyURL(key), err)
	}
	return data, nil
}

// List gives every key below prefix (a folder: "" or ending in "/"), sorted as the store
// lists them. A file store's stranded temporary files are left out.
func (s *Store) List(ctx context.Context, prefix string) ([]string, error) {
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		return nil, fmt.Errorf("list %q: a prefix is a folder and ends in /", prefix)
	}
	var keys []string
	it := s.bucket.List(&blob.ListOptions{Prefix: prefix})
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return keys, nil
		}
		if err != nil {
			return nil, fmt.Errorf("listing %s: %w", s.KeyURL(prefix), err)
		}
		if s.url.Scheme == SchemeFile && strandedTemp.MatchString(obj.Key) {
			continue
		}
		keys = append(keys, obj.Key)
	}
}

// strandedTemp is the name fileblob gives a write in progress beside its target.
var strandedTemp = regexp.MustCompile(`\.[0-9a-f]+\.tmp$`)

// Download copies every object below prefix into dir, at its path below prefix, and says how
// many it wrote. Keys that would leave dir are refused.
func (s *Store) Download(ctx context.Context, prefix, dir string) (int, error) {
	keys, err := s.List(ctx, prefix)
	if err != nil {
		return 0, err
	}
	for i, key := range keys {
		rel := strings.TrimPrefix(key, prefix)
		if err := checkKey(rel); err != nil {
			return i, err
		}
		data, err := s.Get(ctx, key)
		if err != nil {
			return i, err
		}
		file := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return i, err
		}
		if err := os.WriteFile(file, data, 0o644); err != nil {
			return i, err
		}
	}
	return len(keys), nil
}

// checkKey refuses keys that are not plain relative slash paths: a record's file names come
// in part from the verifier, and a key must never reach outside its trial's folder.
func checkKey(key string) error {
	if key == "" || path.IsAbs(key) || path.Clean(key) != key || key == ".." || strings.HasPrefix(key, "../") || strings.Contains(key, "\\") || bytes.ContainsRune([]byte(key), 0) {
		return fmt.Errorf("store key %q is not a plain relative path", key)
	}
	return nil
}

func contentType(key string) string {
	switch path.Ext(key) {
	case ".json":
		return "application/json"
	default:
		return "application/octet-stream"
	}
}
