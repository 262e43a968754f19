// Command storecheck puts and gets objects in a bucket opened from a gocloud.dev/blob URL
// (s3://, credentials from the AWS environment, or file://). The e2e suite runs it in Pods, as
// the manager's user, to show that a Pod reaches the suite's S3 server and can write the
// manager's store volume:
//
//	storecheck URL put:KEY=VALUE get:KEY ...
//
// Each get prints KEY=VALUE on its own line; the first failure ends it with status 1.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/fileblob" // file:// through the blob URL mux
	_ "gocloud.dev/blob/s3blob"   // s3:// through the blob URL mux
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: storecheck URL put:KEY=VALUE|get:KEY...")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "storecheck:", err)
		os.Exit(1)
	}
}

func run(url string, ops []string) (err error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	bucket, err := blob.OpenBucket(ctx, url)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := bucket.Close(); err == nil {
			err = cerr
		}
	}()
	for _, op := range ops {
		verb, arg, _ := strings.Cut(op, ":")
		switch verb {
		case "put":
			key, value, _ := strings.Cut(arg, "=")
			if err := bucket.WriteAll(ctx, key, []byte(value), nil); err != nil {
				return fmt.Errorf("put %s: %w", key, err)
			}
		case "get":
			b, err := bucket.ReadAll(ctx, arg)
			if err != nil {
				return fmt.Errorf("get %s: %w", arg, err)
			}
			fmt.Printf("%s=%s\n", arg, b)
		default:
			return fmt.Errorf("operation %q: want put:KEY=VALUE or get:KEY", op)
		}
	}
	return nil
}
