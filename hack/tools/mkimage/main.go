// Command mkimage assembles a container image without a Docker daemon and either writes it as a
// docker-archive tarball (for `ctr -n k8s.io images import`) or pushes it to a registry.
//
// The image starts from one base:
//
//	-base-image FILE    a docker-archive tarball written earlier by mkimage (or `docker save`)
//	-base-rootfs FILE   a root filesystem tarball (plain or gzip), used as the first layer
//	-base-binary FILE   a single static binary, put at -binary-path (default /<name>) and made
//	                    the entrypoint unless -entrypoint is given
//	(none)              an empty image
//
// then adds one layer per -layer SRC:DEST (a directory or file copied to DEST in the image, owned
// by -chown, with every mtime set to -mtime so that equal content gives equal digests) and sets
// the entrypoint, command, working directory, environment and user.
//
// The reference given with -ref may end in ":auto": the tag is then "c-" followed by the first 16
// hex digits of the image's config digest, so a tag names its content and never has to be pulled
// again (imagePullPolicy: IfNotPresent). The final reference is printed on stdout and, with
// -ref-file, written to that file.
//
//	mkimage -base-binary bin/sweep-hook -ref localhost/sweep-hook:auto -o hook.tar
//	mkimage -base-image agent.tar -layer task/tests:/tests -ref localhost/t-verifier:auto -o v.tar
//	mkimage ... -ref registry.example:5000/sweep/manager:auto -push
package main

import (
	"archive/tar"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

type list []string

func (l *list) String() string     { return strings.Join(*l, " ") }
func (l *list) Set(s string) error { *l = append(*l, s); return nil }

type options struct {
	baseImage, baseRootfs, baseBinary, binaryPath string
	layers, env, labels                           list
	entrypoint, cmd                               string
	workdir, user, chown, mtime                   string
	ref, out, refFile                             string
	push, insecure                                bool
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("mkimage: ")
	var o options
	flag.StringVar(&o.baseImage, "base-image", "", "docker-archive tarball to start from")
	flag.StringVar(&o.baseRootfs, "base-rootfs", "", "root filesystem tarball (plain or gzip) to start from")
	flag.StringVar(&o.baseBinary, "base-binary", "", "static binary to start from")
	flag.StringVar(&o.binaryPath, "binary-path", "", "where -base-binary goes in the image (default /<file name>)")
	flag.Var(&o.layers, "layer", "SRC:DEST, a directory or file added as one layer (repeatable, bottom first)")
	flag.Var(&o.env, "env", "KEY=VALUE (repeatable; replaces the same KEY from the base)")
	flag.Var(&o.labels, "label", "KEY=VALUE image label (repeatable)")
	flag.StringVar(&o.entrypoint, "entrypoint", "", `entrypoint as a JSON array, e.g. '["/manager"]'`)
	flag.StringVar(&o.cmd, "cmd", "", `command as a JSON array, e.g. '["python3"]'`)
	flag.StringVar(&o.workdir, "workdir", "", "working directory")
	flag.StringVar(&o.user, "user", "", "user (UID[:GID] or name)")
	flag.StringVar(&o.chown, "chown", "0:0", "UID:GID of the files in -layer and -base-binary layers")
	flag.StringVar(&o.mtime, "mtime", "2000-01-01T00:00:00Z", "modification time of the files in added layers (RFC 3339)")
	flag.StringVar(&o.ref, "ref", "", "image reference; a tag of \"auto\" becomes a content-derived tag (required)")
	flag.StringVar(&o.out, "o", "", "write a docker-archive tarball here")
	flag.BoolVar(&o.push, "push", false, "push the image to the registry named in -ref")
	flag.BoolVar(&o.insecure, "insecure", false, "with -push: allow a plain-HTTP registry")
	flag.StringVar(&o.refFile, "ref-file", "", "also write the final reference to this file")
	flag.Parse()
	if flag.NArg() != 0 {
		log.Fatalf("unexpected arguments %q", flag.Args())
	}
	ref, err := run(o)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ref)
}

func run(o options) (string, error) {
	if o.ref == "" {
		return "", errors.New("-ref is required")
	}
	if (o.out == "") == !o.push {
		return "", errors.New("give exactly one of -o FILE and -push")
	}
	bases := 0
	for _, b := range []string{o.baseImage, o.baseRootfs, o.baseBinary} {
		if b != "" {
			bases++
		}
	}
	if bases > 1 {
		return "", errors.New("give at most one of -base-image, -base-rootfs, -base-binary")
	}
	mtime, err := time.Parse(time.RFC3339, o.mtime)
	if err != nil {
		return "", fmt.Errorf("-mtime: %w", err)
	}
	uid, gid, err := parseOwner(o.chown)
	if err != nil {
		return "", err
	}
	add := layerOpts{uid: uid, gid: gid, mtime: mtime}

	img, err := base(o, add)
	if err != nil {
		return "", err
	}
	for _, spec := range o.layers {
		src, dest, ok := strings.Cut(spec, ":")
		if !ok || src == "" || !path.IsAbs(dest) {
			return "", fmt.Errorf("-layer %q: want SRC:/absolute/dest", spec)
		}
		l, err := dirLayer(src, dest, add)
		if err != nil {
			return "", fmt.Errorf("-layer %q: %w", spec, err)
		}
		if img, err = mutate.AppendLayers(img, l); err != nil {
			return "", err
		}
	}
	if img, err = configure(img, o); err != nil {
		return "", err
	}

	ref, err := finalRef(o.ref, img, o.insecure)
	if err != nil {
		return "", err
	}
	if o.push {
		if err := remote.Write(ref, img, remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
			return "", fmt.Errorf("push %s: %w", ref, err)
		}
	} else {
		tag, ok := ref.(name.Tag)
		if !ok {
			return "", fmt.Errorf("%s: a docker-archive needs a tag, not a digest", ref)
		}
		tmp := o.out + ".tmp"
		if err := tarball.WriteToFile(tmp, tag, img); err != nil {
			return "", fmt.Errorf("write %s: %w", o.out, err)
		}
		if err := os.Rename(tmp, o.out); err != nil {
			return "", err
		}
	}
	s := ref.Name()
	if o.refFile != "" {
		if err := os.WriteFile(o.refFile, []byte(s+"\n"), 0o644); err != nil {
			return "", err
		}
	}
	return s, nil
}

func base(o options, add layerOpts) (v1.Image, error) {
	switch {
	case o.baseImage != "":
		return tarball.ImageFromPath(o.baseImage, nil)
	case o.baseRootfs != "":
		p := o.baseRootfs
		l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return os.Open(p) }, tarball.WithCompressedCaching)
		if err != nil {
			return nil, err
		}
		return mutate.AppendLayers(empty.Image, l)
	case o.baseBinary != "":
		dest := o.binaryPath
		if dest == "" {
			dest = "/" + filepath.Base(o.baseBinary)
		}
		l, err := dirLayer(o.baseBinary, dest, add)
		if err != nil {
			return nil, err
		}
		img, err := mutate.AppendLayers(empty.Image, l)
		if err != nil {
			return nil, err
		}
		if o.entrypoint == "" {
			return mutate.Config(img, v1.Config{Entrypoint: []string{dest}})
		}
		return img, nil
	}
	return empty.Image, nil
}

// configure sets the runtime config on top of what the base carries.
func configure(img v1.Image, o options) (v1.Image, error) {
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", "amd64"
	c := &cf.Config
	if len(c.Env) == 0 {
		c.Env = []string{"PATH=" + defaultPath}
	}
	for _, kv := range o.env {
		k, _, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("-env %q: want KEY=VALUE", kv)
		}
		c.Env = setEnv(c.Env, k, kv)
	}
	if o.entrypoint != "" {
		if err := json.Unmarshal([]byte(o.entrypoint), &c.Entrypoint); err != nil {
			return nil, fmt.Errorf("-entrypoint: %w", err)
		}
	}
	if o.cmd != "" {
		if err := json.Unmarshal([]byte(o.cmd), &c.Cmd); err != nil {
			return nil, fmt.Errorf("-cmd: %w", err)
		}
	}
	if o.workdir != "" {
		c.WorkingDir = o.workdir
	}
	if o.user != "" {
		c.User = o.user
	}
	for _, kv := range o.labels {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("-label %q: want KEY=VALUE", kv)
		}
		if c.Labels == nil {
			c.Labels = map[string]string{}
		}
		c.Labels[k] = v
	}
	return mutate.ConfigFile(img, cf)
}

func setEnv(env []string, key, kv string) []string {
	for i, e := range env {
		if strings.HasPrefix(e, key+"=") {
			env[i] = kv
			return env
		}
	}
	return append(env, kv)
}

// finalRef parses the reference, replacing a tag of "auto" with one derived from the config
// digest (which covers every layer's content and the runtime config).
func finalRef(s string, img v1.Image, insecure bool) (name.Reference, error) {
	var opts []name.Option
	if insecure {
		opts = append(opts, name.Insecure)
	}
	if repo, ok := strings.CutSuffix(s, ":auto"); ok && !strings.Contains(repo, "@") {
		id, err := img.ConfigName()
		if err != nil {
			return nil, err
		}
		s = repo + ":c-" + id.Hex[:16]
	}
	ref, err := name.ParseReference(s, opts...)
	if err != nil {
		return nil, err
	}
	if t, ok := ref.(name.Tag); ok && t.TagStr() == "latest" && strings.HasSuffix(s, ":latest") {
		return nil, errors.New("refusing the tag \"latest\": use an explicit tag or \"auto\"")
	}
	return ref, nil
}

func parseOwner(s string) (int, int, error) {
	u, g, ok := strings.Cut(s, ":")
	if !ok {
		g = u
	}
	uid, err1 := strconv.Atoi(u)
	gid, err2 := strconv.Atoi(g)
	if err1 != nil || err2 != nil || uid < 0 || gid < 0 {
		return 0, 0, fmt.Errorf("-chown %q: want UID:GID", s)
	}
	return uid, gid, nil
}

type layerOpts struct {
	uid, gid int
	mtime    time.Time
}

// dirLayer makes an uncompressed tar of src (a directory or a single file) placed at dest, with
// the parent directories of dest, normalised owner and mtimes, in a temporary file.
func dirLayer(src, dest string, o layerOpts) (v1.Layer, error) {
	f, err := os.CreateTemp("", "mkimage-layer-*.tar")
	if err != nil {
		return nil, err
	}
	// The file is unlinked at once; the opener reads through duplicated descriptors.
	if err := os.Remove(f.Name()); err != nil {
		return nil, errors.Join(err, f.Close())
	}
	if err := writeTar(f, src, dest, o); err != nil {
		return nil, errors.Join(err, f.Close())
	}
	open := func() (io.ReadCloser, error) {
		return io.NopCloser(io.NewSectionReader(f, 0, 1<<62)), nil
	}
	return tarball.LayerFromOpener(open, tarball.WithCompressedCaching)
}

func writeTar(w io.Writer, src, dest string, o layerOpts) error {
	tw := tar.NewWriter(w)
	hdr := func(h *tar.Header) *tar.Header {
		h.Uid, h.Gid, h.Uname, h.Gname = o.uid, o.gid, "", ""
		h.ModTime, h.AccessTime, h.ChangeTime = o.mtime, time.Time{}, time.Time{}
		h.Format = tar.FormatPAX
		h.PAXRecords = nil
		return h
	}
	// parent directories of dest, so the layer unpacks onto an empty image too
	var parents []string
	for d := path.Dir(dest); d != "/"; d = path.Dir(d) {
		parents = append([]string{d}, parents...)
	}
	for _, d := range parents {
		if err := tw.WriteHeader(hdr(&tar.Header{Typeflag: tar.TypeDir, Name: strings.TrimPrefix(d, "/") + "/", Mode: 0o755})); err != nil {
			return err
		}
	}
	root := strings.TrimPrefix(path.Clean(dest), "/")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		nameIn := path.Join(root, filepath.ToSlash(rel))
		info, err := d.Info()
		if err != nil {
			return err
		}
		link := ""
		if info.Mode()&fs.ModeSymlink != 0 {
			if link, err = os.Readlink(p); err != nil {
				return err
			}
		}
		h, err := tar.FileInfoHeader(info, link)
		if err != nil {
			return err
		}
		h.Name = nameIn
		if info.IsDir() {
			h.Name += "/"
		}
		if err := tw.WriteHeader(hdr(h)); err != nil {
			return err
		}
		if info.Mode().IsRegular() {
			in, err := os.Open(p)
			if err != nil {
				return err
			}
			_, err = io.Copy(tw, in)
			return errors.Join(err, in.Close())
		}
		return nil
	})
	if err != nil {
		return err
	}
	return tw.Close()
}
