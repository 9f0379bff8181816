//go:build unix

package outfile

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// writeFD writes to a duplicate of descriptor fd, which path names.
func writeFD(path string, fd int, write func(io.Writer) error) error {
	d, err := syscall.Dup(fd)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	syscall.CloseOnExec(d)
	f := os.NewFile(uintptr(d), path)
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, Unwrap(err))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, Unwrap(err))
	}
	return nil
}
