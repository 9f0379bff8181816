// Package outfile writes a command's output file (-o): a regular file, or
// a new path, through a temporary file renamed into place; a device, a
// pipe or a descriptor in place. A cancelled context leaves the file as
// it was.
package outfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Write writes path. A regular file, or a new path, is written
// through a temporary file beside it that is renamed into place, so an
// interrupted run never leaves a half-written file; a replaced file keeps
// its mode, a new one gets 0666 less the umask, as a shell's > gives. A
// link to a regular file is followed and its target replaced, so the link
// stays. Anything else — a character device such as /dev/null, a FIFO,
// /dev/fd/N from a shell's >(…), /dev/stdout — is opened and written in
// place: renaming over it would replace the device or the pipe for every
// other process. Errors name path, not the temporary file.
//
// A cancelled ctx (Ctrl-C, SIGTERM) fails the writes from then on and,
// checked once more before the rename, leaves a file as it was: an
// interrupt at any point before the output is committed writes nothing.
func Write(ctx context.Context, path string, write func(io.Writer) error) error {
	write = Cancellable(ctx, write)
	if fd, ok := FD(path); ok {
		return writeFD(path, fd, write)
	}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return writeAtomic(ctx, path, path, 0, write)
	case err != nil:
		return fmt.Errorf("%s: %w", path, Unwrap(err))
	case st.Mode().IsRegular():
		target, err := filepath.EvalSymlinks(path)
		if err != nil {
			return fmt.Errorf("%s: %w", path, Unwrap(err))
		}
		return writeAtomic(ctx, path, target, st.Mode().Perm(), write)
	case st.IsDir():
		return fmt.Errorf("%s: is a directory", path)
	}
	return writeInPlace(path, write)
}

// FD reports whether path names one of this process's open files by
// number, which Write then writes through that descriptor: opening
// /dev/fd/N anew fails for a socket, and for a file would start at its
// beginning rather than where the shell left it.
func FD(path string) (int, bool) {
	switch path {
	case "/dev/stdout":
		return 1, true
	case "/dev/stderr":
		return 2, true
	}
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/"} {
		if n, ok := strings.CutPrefix(path, dir); ok {
			fd, err := strconv.Atoi(n)
			return fd, err == nil && fd >= 0
		}
	}
	return 0, false
}

// writeInPlace opens path, which is not a regular file, for writing and
// writes it without truncating or replacing it.
func writeInPlace(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", path, Unwrap(err))
	}
	return writeClose(path, f, write)
}

// writeClose writes f, then closes it, naming path in an error.
func writeClose(path string, f *os.File, write func(io.Writer) error) error {
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, Unwrap(err))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, Unwrap(err))
	}
	return nil
}

// tempNameMax is how many bytes of the output's name a temporary file's
// name keeps: with the dot, the random part and ".tmp" it stays within
// NAME_MAX (255), so an output name of any valid length can be written.
const tempNameMax = 200

// writeAtomic writes target through a temporary file in its directory,
// renamed over it at the end; path is the name the user gave, for
// messages. perm is the mode to give a replaced file, 0 for a new one,
// which is created 0666 less the umask.
func writeAtomic(ctx context.Context, path, target string, perm fs.FileMode, write func(io.Writer) error) (err error) {
	base := filepath.Base(target)
	if len(base) > tempNameMax {
		cut := tempNameMax
		for cut > 0 && !utf8.RuneStart(base[cut]) {
			cut--
		}
		base = base[:cut]
	}
	create := perm
	if create == 0 {
		create = 0o666 // less the umask, by the kernel
	} else {
		create = 0o600 // until written, then perm
	}
	var tmp *os.File
	for range 100 {
		name := filepath.Join(filepath.Dir(target), "."+base+"."+strconv.FormatUint(rand.Uint64(), 36)+".tmp")
		tmp, err = os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, create)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, Unwrap(err))
	}
	// Removed as the run is cancelled, not only when write returns: a
	// write blocked on standard input may never return before the
	// process ends (an orphaned worker, memlimit.OrphanGrace).
	stop := context.AfterFunc(ctx, func() { os.Remove(tmp.Name()) })
	defer func() {
		stop()
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return fmt.Errorf("%s: %w", path, Unwrap(err))
	}
	if perm != 0 {
		if err := tmp.Chmod(perm); err != nil {
			return fmt.Errorf("%s: %w", path, Unwrap(err))
		}
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, Unwrap(err))
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return fmt.Errorf("%s: %w", path, Unwrap(err))
	}
	return nil
}

// Unwrap drops the operation and the file's name from an *fs.PathError
// or *os.LinkError, for a message that names the file as the user gave
// it (not a temporary file, nor a link's target).
func Unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// Cancellable wraps write so that its writes fail once ctx is done, and
// so does write itself when ctx is done when it returns: standard output
// is written as a file is.
func Cancellable(ctx context.Context, write func(io.Writer) error) func(io.Writer) error {
	return func(w io.Writer) error {
		if err := write(ctxWriter{ctx, w}); err != nil {
			return err
		}
		return ctx.Err()
	}
}

// A ctxWriter passes writes to w until ctx is done, then fails them: a
// writer stops between chunks when the run is interrupted.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}
