// Command gitserver serves the bare Git repositories under a directory over Git's smart HTTP
// protocol, read-only, by running `git http-backend` (Debian's git) as a CGI program. The e2e
// suite runs it in the local cluster's network namespace on the node IP, where Pods (Flux's
// source-controller) reach it without DNS:
//
//	gitserver -listen 10.244.0.1:0 -root DIR
//
// It prints the address it listens on ("listening on HOST:PORT") once it accepts connections,
// and serves until it is killed. Pushes are refused: http-backend enables receive-pack only for
// authenticated users, and nobody authenticates here; the suite commits to the repository on
// the host's file system.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on")
	root := flag.String("root", "", "directory holding the bare repositories (NAME.git)")
	flag.Parse()
	if *root == "" {
		fmt.Fprintln(os.Stderr, "gitserver: -root is required")
		os.Exit(2)
	}
	git, err := exec.LookPath("git")
	if err != nil {
		log.Fatalf("gitserver: %v (install Debian's git)", err)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatalf("gitserver: %v", err)
	}
	backend := &cgi.Handler{
		Path: git,
		Args: []string{"http-backend"},
		// GIT_HTTP_EXPORT_ALL: every repository under the root, without a git-daemon-export-ok file.
		Env:    []string{"GIT_PROJECT_ROOT=" + *root, "GIT_HTTP_EXPORT_ALL=1"},
		Stderr: os.Stderr,
	}
	logged := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.Printf("%s %s %s", r.RemoteAddr, r.Method, r.URL)
		backend.ServeHTTP(w, r)
	})
	fmt.Printf("listening on %s\n", ln.Addr())
	log.Fatal(http.Serve(ln, logged))
}
