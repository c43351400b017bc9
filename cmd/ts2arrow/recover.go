package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tsarrow/tsarrow/tsfile"
)

const recoverHelp = `Usage: ts2arrow recover BROKEN -o FIXED [--schema-from FILE] [--force] [--lenient]

Salvages a TsFile whose writer never finished it (a crash, a full disk, a
half-copied file): scans the data section from the front, keeps every
complete chunk group, checks that each of its pages decodes, and writes
FIXED with those groups byte for byte and a new index and footer. A chunk
group counts as complete once the structure after it (the next group, an
operation index range or the separator) is there too. What was lost is
reported on standard error: the offset where the first incomplete group
begins and why the scan stopped there.

A file whose footer is intact but whose data is damaged (a flipped byte in
a page) is salvaged too: every chunk group that decodes, agrees with its
page statistics and is the chunk the index files at its offset is kept;
every other group is dropped and reported on standard error with its
device, offsets, rows and why, and the index's row count says how many
rows were kept and dropped. "nothing lost" is said only when FIXED holds
every row of BROKEN. The dropped groups' bytes stay in FIXED, outside its
index, so that every kept chunk keeps its offset.

A file whose footer opens and whose every chunk reads and verifies, as
convert reads it, is complete: FIXED is a copy of it. --lenient reads it as
convert --lenient does (known writer quirks, such as the C++ writer's lost
pages and its INT32 PLAIN layout, read around with warnings).

The table schemas of a table-model file live in the footer, so a file
without one recovers as tree-model devices (every point survives, the TAG
column names do not) unless --schema-from names an intact file of the same
dataset to take them from.

FIXED is written to a temporary file beside it (.FIXED.tsarrow-tmp-PID-N)
and renamed into place; a later run removes such a temporary left by a
process that was killed, and says so. An existing FIXED is refused unless
--force, which replaces a file only by a file. FIXED is never BROKEN itself
(nor the --schema-from file), whatever its spelling and even with --force:
the bytes recovery could not salvage would be gone.

Examples:
  ts2arrow recover broken.tsfile -o fixed.tsfile
  ts2arrow recover broken.tsfile -o fixed.tsfile --schema-from yesterday.tsfile
  ts2arrow convert broken.tsfile --recover -o rows.parquet

Exit status: 0 when FIXED was written and holds every chunk group BROKEN
completed (a file cut short loses only its unfinished last group, which
its writer never completed); 3 when FIXED was written but complete chunk
groups had to be dropped (damaged data: rows are lost, see standard
error); 1 when nothing was written; 2 on a usage error; 130 when Ctrl-C
(SIGINT) stopped it, 143 for SIGTERM, once the temporary FIXED was removed.
` + keysHelp + `
Options:
`

func runRecover(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("recover", recoverHelp, stderr)
	out := fs.StringP("output", "o", "", "path of the rebuilt file")
	schemaFrom := fs.String("schema-from", "", "intact TsFile whose table schemas the rebuilt file gets")
	force := fs.Bool("force", false, "overwrite an existing FIXED (never BROKEN itself)")
	lenient := fs.Bool("lenient", false, "read known writer quirks as convert --lenient does: a file that reads whole so is kept whole")
	keys := addKeyFlags(fs)
	obj := addObjectFlags(fs) // for an object FIXED (s3://...)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	ropts, err := keys.readOptions(*lenient)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("recover takes one input BROKEN (got %d arguments)", len(pos))
	}
	if *out == "" || *out == "-" {
		return usagef("recover needs -o FIXED (a file)")
	}
	in := pos[0]
	read := []string{in}
	if *schemaFrom != "" {
		read = append(read, *schemaFrom)
	}
	dst, err := checkOutput(*out, outFile, *force, read, obj.options(), stderr)
	if err != nil {
		return err
	}
	defer dst.close()
	// Ctrl-C or SIGTERM fails the scan's next read, or the next write of
	// the rebuilt file, which removes its temporary; the exit status is
	// then 130 (143).
	ctx, stop := notifyInterrupt()
	defer stop()
	fh, rec, err := recoverFile(ctx, in, *schemaFrom, ropts)
	if err != nil && ctx.Err() != nil {
		return interruptedBy(ctx)
	}
	if err != nil {
		return err
	}
	defer fh.Close()
	err = dst.writeFile(ctx, func(w io.Writer) error {
		_, err := rec.Rebuild(&interruptWriter{ctx, w}, fh, nil)
		return err
	})
	if errors.Is(err, errInterrupted) {
		return err
	}
	if err != nil {
		return &fileError{in, err}
	}
	reportRecovery(stderr, in, rec)
	fmt.Fprintf(stderr, "ts2arrow: wrote %s\n", *out)
	if len(rec.Dropped) > 0 {
		what := fmt.Sprintf("%d damaged chunk groups", len(rec.Dropped))
		if rec.Indexed {
			what += fmt.Sprintf(" (%d rows)", rec.DroppedRows())
		}
		return &partialError{fmt.Sprintf("%s: %s lost: %s holds the rest", in, what, *out)}
	}
	return nil
}

// exitPartial is the exit status of a recover that wrote its output but
// had to drop damaged chunk groups.
const exitPartial = 3

// partialError is a command that did its work but lost data on the way;
// it exits with exitPartial.
type partialError struct{ msg string }

func (e *partialError) Error() string { return e.msg }

// recoverFile scans the file at path with tsfile.Recover, taking table
// schemas from schemaFrom when it is set. The caller closes the file.
func recoverFile(ctx context.Context, path, schemaFrom string, ropts *tsfile.ReadOptions) (*os.File, *tsfile.Recovery, error) {
	opts := tsfile.RecoverOptions{ReadOptions: ropts}
	if schemaFrom != "" {
		sf, err := tsfile.OpenFile(schemaFrom, ropts)
		if err != nil {
			return nil, nil, &fileError{schemaFrom, err}
		}
		for _, t := range sf.Tables() {
			if s, ok := sf.SchemaOf(t); ok {
				opts.Tables = append(opts.Tables, *s)
			}
		}
		sf.Close()
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, nil, err
	}
	// The scan reads the whole file: a signal stops it at its next read.
	rec, err := tsfile.Recover(&interruptReaderAt{ctx, fh}, st.Size(), &opts)
	if err != nil {
		fh.Close()
		return nil, nil, &fileError{path, err}
	}
	return fh, rec, nil
}

// reportRecovery says on stderr what was kept and what was lost.
func reportRecovery(stderr io.Writer, path string, rec *tsfile.Recovery) {
	if rec.Complete {
		fmt.Fprintf(stderr, "ts2arrow: %s: the file is complete; %d rows, nothing lost\n", path, rec.KeptRows())
		return
	}
	if rec.ReadError != nil {
		var line strings.Builder
		report(rec.ReadError, &line)
		fmt.Fprintf(stderr, "ts2arrow: %s: the file does not read whole: %s", path, strings.TrimPrefix(line.String(), "ts2arrow: "))
	}
	if rec.Indexed {
		fmt.Fprintf(stderr, "ts2arrow: %s: recovered %d chunk groups, %d of the %d rows its index counts; dropped %d chunk groups, %d rows\n",
			path, len(rec.Groups), rec.Points(), rec.IndexRows, len(rec.Dropped), rec.DroppedRows())
	} else {
		fmt.Fprintf(stderr, "ts2arrow: %s: recovered %d complete chunk groups (%d rows)", path, len(rec.Groups), rec.Points())
		if n := len(rec.Dropped); n > 0 {
			fmt.Fprintf(stderr, "; dropped %d damaged chunk groups (rows unknown: the file has no index)", n)
		}
		if rec.Lost() > 0 {
			fmt.Fprintf(stderr, "; dropped %d bytes from offset %d", rec.Lost(), rec.ValidEnd)
		}
		fmt.Fprintln(stderr)
	}
	for _, d := range rec.Dropped {
		what := "a damaged range"
		if d.Device.Len() > 0 {
			what = "the chunk group of " + d.Device.String()
		}
		where := fmt.Sprintf("at offsets [%d, %d)", d.Offset, d.End)
		if d.Offset < 0 {
			where = "nowhere in the data section"
		}
		rows := ""
		if d.Rows >= 0 {
			rows = fmt.Sprintf(" (%d rows", d.Rows)
			if d.Chunks >= 0 {
				rows += fmt.Sprintf(", %d chunks", d.Chunks)
			}
			rows += ")"
		}
		fmt.Fprintf(stderr, "ts2arrow: %s: dropped %s %s%s: %v\n", path, what, where, rows, d.Cause)
	}
	if rec.Cause != nil {
		fmt.Fprintf(stderr, "ts2arrow: %s: the scan stopped because %v\n", path, rec.Cause)
	}
}
