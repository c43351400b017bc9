package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/tsarrow/tsarrow/httpfile"
	"github.com/tsarrow/tsarrow/internal/inputs"
	"github.com/tsarrow/tsarrow/objstore"
	"github.com/tsarrow/tsarrow/tsfile"
)

// isURL and isPattern are package inputs' rules, which package query
// shares, so that sql sees the tables convert writes.
var (
	isURL     = inputs.IsURL
	isPattern = inputs.IsPattern
)

// globPaths returns the paths matching pattern (inputs.Glob: sorted, `**`
// any depth); a bad pattern is a usage error.
func globPaths(pattern string) ([]string, error) {
	return usageOf(inputs.Glob(pattern))
}

// expandInputs turns the INPUT arguments of a command into the files they
// name (inputs.Expand); an argument naming no file is a usage error.
// Object URLs are listed with the default store options: commands with
// the object flags call expandInputsWith.
func expandInputs(args []string) ([]string, error) {
	return usageOf(inputs.Expand(args))
}

// expandInputsWith is expandInputs listing object URLs with the options
// of the command's object flags (o nil for the defaults).
func expandInputsWith(ctx context.Context, args []string, o *objstore.Options) ([]string, error) {
	return usageOf(inputs.ExpandContext(ctx, args, o))
}

// checkObjectData refuses object inputs that are IoTDB data (inputs.
// LayoutContext: TsFiles in a data directory's time partition folders,
// or with mods objects beside them) unless --raw is given: read file by
// file they would bring deleted points back and show overwritten ones
// twice, silently. The dataset path reads local data directories as
// IoTDB does; until it reads them from a bucket (dataset.Options.FS),
// such inputs are refused with what to do. files are what
// expandInputsWith made of the arguments.
func checkObjectData(ctx context.Context, files []string, o *objstore.Options) error {
	var objs []string
	for _, f := range files {
		if inputs.IsObjectURL(f) {
			objs = append(objs, f)
		}
	}
	if len(objs) == 0 {
		return nil
	}
	inLayout, withMods, err := inputs.LayoutContext(ctx, objs, o)
	if err != nil {
		return err
	}
	if inLayout || withMods {
		what := "TsFiles of an IoTDB data directory"
		if !inLayout {
			what = "TsFiles with mods files beside them"
		}
		return usagef("the object inputs are %s, which are read with their deletions only from a local data directory so far; pass --raw to read every file as it is, or copy the data directory to a local disk", what)
	}
	return nil
}

// checkObjectInput is checkObjectData for one FILE argument of head,
// schema or inspect; nothing to check with --raw or for a local path. An
// argument that names nothing is left for opening it to report.
func checkObjectInput(ctx context.Context, name string, raw bool, o *objstore.Options) error {
	if raw || !inputs.IsObjectURL(name) {
		return nil
	}
	files, err := expandInputsWith(ctx, []string{name}, o)
	if err != nil {
		return nil
	}
	return checkObjectData(ctx, files, o)
}

// usageOf makes an error of the arguments (inputs.ErrUsage) a usage error,
// exit status 2.
func usageOf(files []string, err error) ([]string, error) {
	if errors.Is(err, inputs.ErrUsage) {
		return nil, usagef("%s", err)
	}
	return files, err
}

// input is an opened TsFile and what reading it has cost.
type input struct {
	name       string
	file       *tsfile.File
	remote     *httpfile.File       // nil for a local file
	object     *objstore.File       // an object URL's file
	downloaded *httpfile.Downloaded // a remote file read whole (--http-full)
	close      func() error
}

// defaultHTTPMaxSize is the default of --http-max-size.
const defaultHTTPMaxSize = 1 << 30

// httpFlags are the flags of the commands that read URLs, for servers that
// do not serve byte ranges.
type httpFlags struct {
	full    *bool
	maxSize byteSize
	// objects are the options object URLs are opened with (the
	// command's objectFlags, set once its flags are parsed); nil for the
	// defaults.
	objects *objstore.Options
	// downloads are kept until release, since convert opens every input
	// twice (the schemas are compared before anything is written) and a
	// file should be downloaded once.
	downloads map[string]*httpfile.Downloaded
}

// release frees the files downloaded; h may be nil.
func (h *httpFlags) release() {
	if h == nil {
		return
	}
	for _, d := range h.downloads {
		d.Close()
	}
	h.downloads = nil
}

// addHTTPFlags adds --http-full and --http-max-size to fs.
func addHTTPFlags(fs *pflag.FlagSet) *httpFlags {
	h := &httpFlags{maxSize: defaultHTTPMaxSize}
	h.full = fs.Bool("http-full", false, "download the whole file of a URL whose server does not serve byte ranges, once, and read it from there")
	fs.Var(&h.maxSize, "http-max-size", "the largest file --http-full downloads, a `SIZE` such as 500MB or 2GiB; 0 for no limit")
	return h
}

// httpHelp documents the flags of addHTTPFlags in a command's help.
const httpHelp = `A URL is read with range requests. A server that does not serve byte
ranges is refused, since reading the file means downloading all of it:
--http-full downloads such a file once, into memory when small, else into
a temporary file that is removed afterwards, refusing a file larger than
--http-max-size (default 1GiB). Or download the file and give its path.
`

// openInput opens a local path, an http(s) URL or an object URL as a
// TsFile. A remote file is read through range requests: the footer first,
// then only what the command asks for. h (nil for none) says what to do
// when an http server does not serve ranges, and holds the options of
// object stores.
func openInput(ctx context.Context, name string, ropts *tsfile.ReadOptions, h *httpFlags) (*input, error) {
	return openInputCounted(ctx, name, ropts, h, nil)
}

// openInputCounted is openInput counting the bytes read into prog.
func openInputCounted(ctx context.Context, name string, ropts *tsfile.ReadOptions, h *httpFlags, prog *progress) (*input, error) {
	var ra io.ReaderAt
	var size int64
	in := &input{name: name}
	if inputs.IsObjectURL(name) {
		of, closeStore, err := h.openObject(ctx, name)
		if err != nil {
			return nil, err
		}
		ra, size, in.object = of, of.Size(), of
		in.close = func() error { return errors.Join(of.Close(), closeStore()) }
	} else if isURL(name) {
		d, hf, err := h.openURL(ctx, name)
		if err != nil {
			return nil, &fileError{name, err}
		}
		if d != nil {
			// h releases the download.
			ra, size, in.downloaded, in.close = d, d.Size(), d, func() error { return nil }
		} else {
			ra, size, in.remote, in.close = hf, hf.Size(), hf, func() error { return nil }
		}
	} else {
		// Stat first: opening a named pipe waits for a writer, and a
		// device such as /dev/zero never ends.
		if st, err := os.Stat(name); err == nil && !st.Mode().IsRegular() {
			return nil, &fileError{name, fmt.Errorf("not a regular file (mode %s); not opened", st.Mode().Type())}
		}
		fh, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		st, err := fh.Stat()
		if err != nil {
			fh.Close()
			return nil, err
		}
		ra, size, in.close = fh, st.Size(), fh.Close
	}
	if prog != nil {
		ra = &countingReaderAt{r: ra, p: prog}
	}
	f, err := tsfile.Open(ra, size, ropts)
	if err != nil {
		in.close()
		return nil, &fileError{name, err}
	}
	in.file = f
	return in, nil
}

// inputSize returns the length of a local file, and 0 for a remote one,
// whose size the progress bar learns as it is opened.
func inputSize(name string) int64 {
	if isURL(name) {
		return 0
	}
	st, err := os.Stat(name)
	if err != nil {
		return 0
	}
	return st.Size()
}

// openObject opens an object URL for range reads through package
// objstore; the caller closes the file, then the store (closeStore). A
// missing object is the store's error, naming the URL, as a missing
// local file is the operating system's; h may be nil.
func (h *httpFlags) openObject(ctx context.Context, url string) (f *objstore.File, closeStore func() error, err error) {
	var o *objstore.Options
	if h != nil {
		o = h.objects
	}
	store, key, err := objstore.Open(ctx, url, o)
	if err != nil {
		return nil, nil, err
	}
	f, err = store.OpenFile(ctx, key)
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	return f, store.Close, nil
}

// openURL opens a remote file for range requests or, where the server
// serves none, downloads it if the flags allow it; h may be nil.
func (h *httpFlags) openURL(ctx context.Context, url string) (*httpfile.Downloaded, *httpfile.File, error) {
	if h != nil && h.downloads[url] != nil {
		return h.downloads[url], nil, nil
	}
	hf, err := httpfile.Open(ctx, url, nil)
	var nr *httpfile.NoRangesError
	if errors.As(err, &nr) {
		d, err := h.download(ctx, nr)
		return d, nil, err
	}
	return nil, hf, err
}

// download fetches the whole file a server without ranges holds, if the
// flags allow it, or returns the copy fetched before.
func (h *httpFlags) download(ctx context.Context, nr *httpfile.NoRangesError) (*httpfile.Downloaded, error) {
	what := "the whole file"
	if nr.Size >= 0 {
		what = fmt.Sprintf("the whole file (%s)", size(nr.Size))
	}
	if h == nil || !*h.full {
		return nil, fmt.Errorf("the server does not serve byte ranges (it %s), so reading it means downloading %s: pass --http-full to download it once (up to --http-max-size, default %s), or download it yourself and give its path", nr.Why, what, formatBytes(defaultHTTPMaxSize))
	}
	limit := int64(h.maxSize)
	d, err := httpfile.Download(ctx, nr.URL, &httpfile.DownloadOptions{MaxSize: limit})
	if errors.Is(err, httpfile.ErrTooLarge) {
		return nil, fmt.Errorf("the server does not serve byte ranges and %s is larger than --http-max-size %s: raise --http-max-size, or download the file yourself and give its path", what, byteCount(limit))
	}
	if err != nil {
		return nil, err
	}
	if h.downloads == nil {
		h.downloads = map[string]*httpfile.Downloaded{}
	}
	h.downloads[nr.URL] = d
	return d, nil
}

// byteCount spells n as formatBytes does, with a unit even where no binary
// unit divides it.
func byteCount(n int64) string {
	s := formatBytes(n)
	if strings.Trim(s, "0123456789") == "" {
		s += " bytes"
	}
	return s
}

// fetched describes the bytes a remote input has cost, for --verbose.
func (in *input) fetched() string {
	if in.downloaded != nil {
		return fmt.Sprintf("%s: downloaded the whole file, %d bytes, as the server serves no byte ranges", in.name, in.downloaded.Size())
	}
	if in.object != nil {
		st := in.object.Stats()
		return fmt.Sprintf("%s: fetched %d of %d bytes in %d requests", in.name, st.Bytes, in.object.Size(), st.Requests)
	}
	if in.remote == nil {
		return ""
	}
	st := in.remote.Stats()
	return fmt.Sprintf("%s: fetched %d of %d bytes in %d range requests", in.name, st.Bytes, in.remote.Size(), st.Requests)
}
